"""Live sessions' permission prompts (protocol/team/sessions.py): one decision per request,
whatever paths it came by; the first answer wins; the queue and ``decisions decide``.

Fixtures: tests/fixtures/claude-code/2.1.332/channel/permission_request.json and
hooks/PermissionRequest.json are the same request of a real session (its channel's
``input_preview`` and the hook's ``tool_input``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.decision_world import ask_permission, team_workspace
from support.locations import FIXTURES

from teamdeck.cli.main import main
from teamdeck.errors import NotFound, Refused
from teamdeck.protocol.team.channel_push import answers_to_relay, delivered, unpushed
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.session_log import fingerprint, prompts, read_log
from teamdeck.protocol.team.sessions import answer_prompt, close_prompts, record_prompt
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.sessions import session_decisions
from teamdeck.view.refresh.build import build_snapshot
from teamdeck.view.snapshot.workspace import Decision

CAPTURED = FIXTURES / "2.1.332"
CHANNEL = json.loads((CAPTURED / "channel" / "permission_request.json").read_text())["params"]
HOOK = json.loads((CAPTURED / "hooks" / "PermissionRequest.json").read_text())


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace.at(tmp_path, actor="human:tester")


def from_channel(ws: Workspace, request_id: str = CHANNEL["request_id"]):
    return record_prompt(
        ws, "alpha", "coder", tool=CHANNEL["tool_name"], tool_input=CHANNEL["input_preview"],
        description=CHANNEL["description"], source="channel", request_id=request_id,
    )  # fmt: skip


def from_hook(ws: Workspace):
    return record_prompt(ws, "alpha", "coder", tool=HOOK["tool_name"], tool_input=HOOK["tool_input"], source="hook")


def test_the_channel_preview_and_the_hook_input_of_one_request_share_a_fingerprint() -> None:
    assert fingerprint(CHANNEL["tool_name"], CHANNEL["input_preview"]) == fingerprint(
        HOOK["tool_name"], HOOK["tool_input"]
    )
    assert fingerprint("Bash", {"command": "ls"}) != fingerprint("Bash", {"command": "ls -a"})
    assert fingerprint("Bash", '{"command": "ls" cut sh') == fingerprint("Bash", '{"command": "ls" cut sh')


def test_one_request_by_two_paths_is_one_decision(ws: Workspace) -> None:
    first = from_channel(ws)
    joined = from_hook(ws)
    assert joined.id == first.id == CHANNEL["request_id"]
    assert joined.sources == ["channel", "hook"] and joined.request_ids == [CHANNEL["request_id"]]
    [decision] = session_decisions(ws)
    assert decision.key == f"session:alpha:coder:{first.id}" and decision.kind == "session-permission"
    assert "via channel + hook" in decision.title and decision.tool == "Bash"
    other = record_prompt(ws, "alpha", "coder", tool="Bash", tool_input={"command": "rm x"}, source="hook")
    assert other.id != first.id and len(session_decisions(ws)) == 2  # another request


def test_the_first_answer_wins_and_is_relayed_to_the_channel(ws: Workspace) -> None:
    prompt = from_channel(ws)
    answer_prompt(ws, "alpha", "coder", prompt.id, "deny", "not now")
    with pytest.raises(Refused, match="settled already"):
        answer_prompt(ws, "alpha", "coder", prompt.id, "allow")  # C7: one effective answer
    assert answers_to_relay(ws, "alpha", {prompt.id}) == [(prompt.id, "deny")]
    assert answers_to_relay(ws, "alpha", {"other"}) == []
    assert session_decisions(ws) == ()
    with pytest.raises(NotFound):
        answer_prompt(ws, "alpha", "coder", "nosuch", "allow")


def test_answered_in_the_terminal_closes_it_and_a_later_answer_is_refused(ws: Workspace) -> None:
    prompt = from_channel(ws)
    closed = close_prompts(ws, "alpha", "coder", prompt.fingerprint, "the tool ran", "agent:coder@alpha")
    assert [p.id for p in closed] == [prompt.id]
    assert close_prompts(ws, "alpha", "coder", prompt.fingerprint, "again", "agent:coder@alpha") == []
    with pytest.raises(Refused, match="the tool ran"):
        answer_prompt(ws, "alpha", "coder", prompt.id, "allow")
    again = from_channel(ws, request_id="zzzzz")  # the same request asked again: a new decision
    assert again.id == "zzzzz" and [d.request_id for d in session_decisions(ws)] == ["zzzzz"]


def test_a_request_the_mailbox_already_asks_is_not_asked_twice(ws: Workspace) -> None:
    from_hook(ws)
    mailbox = Decision(
        key="permission:alpha:coder:req-1", kind="permission", state="blocked", created_at="2026-11-26T10:00:00Z",
        source="team alpha", title="coder asks to use Bash", tool="Bash", team="alpha", member="coder",
        body=json.dumps(HOOK["tool_input"], indent=2),
    )  # fmt: skip
    assert session_decisions(ws, [mailbox]) == ()
    assert len(session_decisions(ws, [])) == 1


def test_decisions_decide_answers_a_session_prompt(ws: Workspace, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = from_channel(ws)
    assert main(["--workspace", str(ws.root), "decisions", "list", "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)["decisions"]
    assert (listed["kind"], listed["tool"], listed["member"]) == ("session-permission", "Bash", "coder")
    assert json.loads(listed["input"]) == HOOK["tool_input"]
    assert main(["--workspace", str(ws.root), "decisions", "decide", prompt.key, "approve", "--note", "ok"]) == 0
    [settled] = prompts(read_log(ws, "alpha"), "alpha")
    assert (settled.answer, settled.note) == ("allow", "ok") and settled.by.startswith("human:")
    assert build_snapshot(ws).decisions == ()


def test_inbox_entries_are_pushed_once_and_marked_read(ws: Workspace) -> None:
    create_team(ws, "alpha")
    add_member(ws, "alpha", "coder")
    send_message(ws, "alpha", "coder", "Please read the spec", summary="spec first")
    [item] = unpushed(ws, "alpha", "coder")
    assert item.content == "Please read the spec"
    assert item.meta == {"from": "team-lead", "kind": "plain", "summary": "spec first", "timestamp": item.timestamp}
    delivered(ws, "alpha", "coder", [item])
    assert unpushed(ws, "alpha", "coder") == []
    inbox = json.loads(ws.inbox("alpha", "coder").read_text())
    assert [entry["read"] for entry in inbox] == [True]
    pushes = [r for r in read_log(ws, "alpha") if r["type"] == "channel_push"]
    assert len(pushes) == 1 and pushes[0]["payload"]["from"] == "team-lead"


def test_a_mailbox_request_relayed_by_the_leads_session_is_one_decision_and_one_answer(tmp_path: Path) -> None:
    """bob's request is a permission_request in the lead's mailbox, and the same prompt in
    the lead's session dialog (relayed by its channel, member team-lead): the queue shows
    the mailbox one, and answering it answers the channel's too (so the lead's client,
    which refuses teamdeck's permission_response, still gets the answer)."""
    ws = team_workspace(tmp_path / "ws")
    ask_permission(ws, "alpha", "bob", "req-1", tool_input=HOOK["tool_input"])
    relayed = record_prompt(
        ws, "alpha", "team-lead", tool="Bash", tool_input=CHANNEL["input_preview"], source="channel", request_id="abcde"
    )
    [decision] = build_snapshot(ws).decisions
    assert (decision.kind, decision.member) == ("permission", "bob")
    assert main(["--workspace", str(ws.root), "decisions", "decide", decision.key, "reject", "--note", "no"]) == 0
    [answered] = prompts(read_log(ws, "alpha"), "alpha")
    assert (answered.id, answered.answer, answered.note) == (relayed.id, "deny", "no")
    assert answers_to_relay(ws, "alpha", {"abcde"}) == [("abcde", "deny")]
    assert build_snapshot(ws).decisions == ()
