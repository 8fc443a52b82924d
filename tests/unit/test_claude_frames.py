"""Every mailbox frame of the pinned Claude Code (2.1.332) is read, shown and, where it
is a request, answered.

The frames no scripted run can make the client write (FORMAT.md, "Frames built from the
binary's schema") are in tests/fixtures/claude-code/2.1.332/schema-frames/, built from
the binary's zod schemas and builders; this reads that team as a user's workspace:
decoded kinds (B13: unknown fields kept, unknown types raw), the roster (a failed turn,
a terminated teammate, reported tasks), the inbox rows, the task list, the decision
queue, and the answer to a sandbox host request, written exactly as the client's lead
writes it. A frame out of its schema is one problem naming file and entry (B4), never a
crash.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.claude_team_recorder import live_replay, load_history, until_cleanup, until_first
from support.locations import FIXTURES

from teamdeck.clock import fixed_clock, parse_iso
from teamdeck.decisions.registry import answer_decision, find_decision
from teamdeck.errors import Refused
from teamdeck.model.team import (
    IdleNotification,
    ModeSetRequest,
    SandboxPermissionRequest,
    SandboxPermissionResponse,
    TaskCompleted,
    TeammateTerminated,
    TeamPermissionUpdate,
    Unknown,
    decode_text,
)
from teamdeck.protocol.team.channel_push import answers_to_relay
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.session_log import prompts, read_log
from teamdeck.protocol.team.sessions import record_prompt
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

SCHEMA_FRAMES = FIXTURES / "2.1.332" / "schema-frames"
TEAM = "session-5f3a9c1e"
NOW = parse_iso("2026-11-26T16:21:00Z")
OPEN = "sandbox:session-5f3a9c1e:bob:sandbox-1795712430512-k3v9q2x"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "claude"
    shutil.copytree(SCHEMA_FRAMES, root)
    return Workspace.at(root, clock=fixed_clock(NOW), actor="human:tester")


def lead_texts() -> list[str]:
    inbox = SCHEMA_FRAMES / "teams" / TEAM / "inboxes" / "team-lead.json"
    return [entry["text"] for entry in json.loads(inbox.read_text())]


def member(snapshot: WorkspaceSnapshot, name: str):
    (team,) = snapshot.teams
    return next(m for m in team.members if m.name == name)


def test_each_frame_decodes_to_its_kind_with_every_field_kept() -> None:
    kinds = [decode_text(text) for text in lead_texts()]
    assert [type(kind) for kind in kinds] == [
        IdleNotification,
        TaskCompleted,
        SandboxPermissionRequest,
        SandboxPermissionRequest,
        IdleNotification,
        TeammateTerminated,
        TaskCompleted,
        Unknown,  # a sandbox request without hostPattern: raw, with the reason
    ]
    for text, kind in zip(lead_texts(), kinds, strict=True):
        assert kind.to_payload() == json.loads(text)  # nothing dropped, nothing added (B13)
    idle, failed = kinds[0], kinds[4]
    assert isinstance(idle, IdleNotification) and isinstance(failed, IdleNotification)
    assert idle.result and not idle.failed
    assert failed.failed and failed.failureReason == "API Error: 529 overloaded_error"
    assert isinstance(kinds[5], TeammateTerminated) and kinds[5].member == "dave"
    bad = kinds[7]
    assert isinstance(bad, Unknown) and bad.problem and "hostPattern" in bad.problem
    assert isinstance(decode_text('{"type":"mode_set_request"}'), ModeSetRequest)
    assert isinstance(decode_text('{"type":"team_permission_update"}'), TeamPermissionUpdate)


def test_the_roster_shows_a_failed_turn_a_terminated_teammate_and_reported_tasks(ws: Workspace) -> None:
    snapshot = build_snapshot(ws)
    carol = member(snapshot, "carol")
    assert carol.status == "idle" and "turn failed: API Error: 529 overloaded_error" in carol.detail
    assert any(marker.startswith("turn failed:") for marker in carol.markers)  # a problem on the roster
    dave = member(snapshot, "dave")  # no longer in config.json: his row comes from teammate_terminated
    assert (dave.status, dave.detail, dave.active) == ("offline", "dave has shut down.", False)
    assert "reported #1 completed" in member(snapshot, "alice").detail
    assert "reported #2 completed" in member(snapshot, "bob").detail
    ledger = build_ledger(ws, TEAM)
    assert [finding.code for finding in ledger.failures] == ["turn_failed"]


def test_a_later_successful_turn_clears_the_failure(ws: Workspace) -> None:
    inbox = ws.inbox(TEAM, "team-lead")
    entries = json.loads(inbox.read_text())
    again = dict(entries[4], timestamp="2026-11-26T16:20:59.000Z")
    again["text"] = json.dumps({"type": "idle_notification", "from": "carol", "timestamp": again["timestamp"]})
    inbox.write_text(json.dumps([*entries, again]))
    carol = member(build_snapshot(ws), "carol")
    assert carol.markers == () and "failed" not in carol.detail


def test_a_teammate_still_on_the_roster_goes_offline_with_the_message(ws: Workspace) -> None:
    inbox = ws.inbox(TEAM, "team-lead")
    entries = json.loads(inbox.read_text())
    gone = dict(entries[5], text=json.dumps({"type": "teammate_terminated", "message": "bob has shut down."}))
    inbox.write_text(json.dumps([*entries, gone]))
    bob = member(build_snapshot(ws), "bob")
    assert (bob.status, bob.detail.split(";")[0]) == ("offline", "bob has shut down.")


def test_the_inbox_shows_each_frame_and_keeps_unknown_ones_raw(ws: Workspace) -> None:
    snapshot = build_snapshot(ws)
    lead_rows = member(snapshot, "team-lead").inbox
    assert [row.summary for row in lead_rows[:-1]] == [
        "idle (available): task #1 resolved; notes.md written",
        "task #1 completed: Write notes",
        "sandbox host requested: registry.npmjs.org",
        "sandbox host requested: pypi.org",
        "idle (failed): API Error: 529 overloaded_error",
        "terminated: dave has shut down.",
        "task #2 completed",
    ]
    assert lead_rows[-1].summary.startswith("sandbox_permission_request message (hostPattern: ")
    assert lead_rows[0].text.startswith("I wrote notes.md")  # the idle result is the row's text
    bob_rows = member(snapshot, "bob").inbox
    assert [row.kind for row in bob_rows] == [
        "sandbox_permission_response",
        "mode_set_request",
        "team_permission_update",
        "unknown",
    ]
    assert "drops it from the inbox" in bob_rows[1].summary
    assert json.loads(bob_rows[3].raw) == {"type": "permission_mode_nudge", "mode": "plan"}  # never dropped


def test_a_frame_out_of_its_schema_is_one_problem_naming_file_and_entry(ws: Workspace) -> None:
    problems = [problem for problem in build_snapshot(ws).problems if "frame" in problem.why]
    assert [(p.path, p.where) for p in problems] == [(f"teams/{TEAM}/inboxes/team-lead.json", "entry 7")]
    assert problems[0].why.startswith("sandbox_permission_request frame: hostPattern: ")  # then pydantic's words


def test_the_task_list_follows_task_completed(ws: Workspace) -> None:
    (listing,) = build_snapshot(ws).team_tasks
    by_id = {task.id: task for task in listing.tasks}
    assert by_id["1"].reported == "completed by alice at 2026-11-26T16:20:11.390Z"
    assert by_id["1"].stalled == "" and by_id["3"].reported == ""


def test_the_open_sandbox_request_is_one_decision_the_answered_one_none(ws: Workspace) -> None:
    gates = [gate for gate in build_snapshot(ws).decisions if gate.kind == "sandbox-permission"]
    assert [gate.key for gate in gates] == [OPEN]
    (gate,) = gates
    assert (gate.member, gate.reason, gate.tool) == ("bob", "registry.npmjs.org", "SandboxNetworkAccess")


@pytest.mark.parametrize("word, allow", [("allow", True), ("deny", False), ("approve", True), ("reject", False)])
def test_answering_writes_the_clients_sandbox_permission_response(ws: Workspace, word: str, allow: bool) -> None:
    decision = find_decision(build_snapshot(ws), OPEN)
    answer, answered = answer_decision(ws, decision, word, "checked the host")
    assert answer.positive is allow and answered.data["requestId"] == "sandbox-1795712430512-k3v9q2x"
    last = json.loads(ws.inbox(TEAM, "bob").read_text())[-1]
    assert (last["from"], last["read"]) == ("team-lead", False)
    frame = json.loads(last["text"])
    assert frame == {  # the fields and order of the client's own builder (Uji)
        "type": "sandbox_permission_response",
        "requestId": "sandbox-1795712430512-k3v9q2x",
        "host": "registry.npmjs.org",
        "allow": allow,
        "timestamp": "2026-11-26T16:21:00.000Z",
    }
    assert list(frame) == ["type", "requestId", "host", "allow", "timestamp"]
    assert isinstance(decode_text(last["text"]), SandboxPermissionResponse)
    assert OPEN not in [gate.key for gate in build_snapshot(ws).decisions]
    record = json.loads(ws.messages_log(TEAM).read_text().splitlines()[-1])
    assert record["reason"] == "checked the host"  # the frame has no field for it
    with pytest.raises(Refused):  # answered: not again
        answer_decision(ws, decision, word, None)


# --- the captured sandbox request (tests/conformance/test_claude_code_sandbox.py) ----


SANDBOX_TEAM = FIXTURES / "2.1.332" / "sandbox-team" / "history.jsonl"


def test_the_captured_sandbox_request_is_queued_and_answered_as_teamdeck_did(tmp_path: Path) -> None:
    """The real client's request, replayed through the live view up to teamdeck's own
    write, is one decision; answering it writes the frame teamdeck wrote in the run."""
    versions = load_history(SANDBOX_TEAM)
    ws, live = live_replay(until_first(versions, "messages.jsonl"), tmp_path / "claude")
    (gate,) = [gate for gate in live.decisions if gate.kind == "sandbox-permission"]
    assert (gate.member, gate.reason) == ("bob", "sandbox-probe.example")
    answer_decision(ws, gate, "deny", None)
    ours = json.loads(json.loads(ws.inbox(gate.team, "bob").read_text())[-1]["text"])
    in_run = next(
        json.loads(entry["text"])
        for version in versions
        if version.text and version.path.endswith("inboxes/bob.json")
        for entry in json.loads(version.text)
        if "sandbox_permission_response" in entry["text"]
    )
    assert {**ours, "timestamp": None} == {**in_run, "timestamp": None}


def test_the_captured_failed_turn_marks_the_teammate_after_the_drain(tmp_path: Path) -> None:
    history = FIXTURES / "2.1.332" / "failed-turn" / "history.jsonl"
    ws, live = live_replay(until_cleanup(load_history(history)), tmp_path / "claude")
    (team,) = live.teams
    assert ws.inbox(team.name, "team-lead").read_text() == "[]"  # the client drained it
    carol = next(m for m in team.members if m.name == "carol")
    assert carol.detail.startswith("turn failed: API Error: 400")
    assert [marker.split(":")[0] for marker in carol.markers] == ["turn failed"]


def test_a_sandbox_request_relayed_by_the_leads_session_is_one_decision_and_one_answer(ws: Workspace) -> None:
    """The same host request in the lead's mailbox and in the lead's session dialog
    (relayed by its channel): one decision, and answering it answers both routes."""
    relayed = record_prompt(
        ws, TEAM, "team-lead", tool="SandboxNetworkAccess", tool_input={"host": "registry.npmjs.org"},
        source="channel", request_id="abcde",
    )  # fmt: skip
    assert [gate.key for gate in build_snapshot(ws).decisions if gate.key.startswith(("sandbox", "session"))] == [OPEN]
    answer_decision(ws, find_decision(build_snapshot(ws), OPEN), "deny", None)
    [answered] = prompts(read_log(ws, TEAM), TEAM)
    assert (answered.id, answered.answer) == (relayed.id, "deny")
    assert answers_to_relay(ws, TEAM, {"abcde"}) == [("abcde", "deny")]
