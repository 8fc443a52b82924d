"""SendMessage rules (seed 004 §4): every refusal says why and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from teamdeck.errors import NotFound, ReadOnly, Refused
from teamdeck.model.team import IdleNotification, PlanApprovalRequest, ShutdownRequest
from teamdeck.protocol.team import teams
from teamdeck.protocol.team.messaging import handshake_writes as handshakes
from teamdeck.protocol.team.messaging import injection, reading, sending
from teamdeck.store.workspace import Workspace

TEAM = "team-smoke"


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file and directory under ``root``: path → bytes (None for directories)."""
    return {
        str(path.relative_to(root)): (None if path.is_dir() else path.read_bytes()) for path in sorted(root.rglob("*"))
    }


@pytest.fixture
def team_ws(ws: Workspace) -> Workspace:
    """A team ``team-smoke``: the lead, agent-a, and Agent-B (plan mode)."""
    teams.create_team(ws, TEAM, description="smoke")
    teams.add_member(ws, TEAM, "agent-a")
    teams.add_member(ws, TEAM, "Agent-B", plan_mode=True)
    return ws


def inbox(ws: Workspace, member: str) -> list[dict]:
    path = ws.inbox(TEAM, member)
    return json.loads(path.read_text()) if path.exists() else []


def refused_without_writing(ws: Workspace, error: type[Exception], match: str, action) -> None:
    before = snapshot(ws.root)
    with pytest.raises(error, match=match):
        action()
    assert snapshot(ws.root) == before


# --- recipients -------------------------------------------------------------------


@pytest.mark.parametrize(
    "given", ["agent-b", "AGENT-B", "Agent-B", "agent-b@team-smoke", "AGENT-B@TEAM-SMOKE", " agent-b "]
)
def test_recipients_resolve_case_insensitively_to_the_canonical_name(team_ws: Workspace, given: str) -> None:
    sent = sending.send_message(team_ws, TEAM, given, "hello", summary="hi")
    assert sent.recipients == ("Agent-B",)
    assert [m["text"] for m in inbox(team_ws, "Agent-B")] == ["hello"]


@pytest.mark.parametrize("given", ["team-lead", "TEAM-LEAD", "team-lead@team-smoke"])
def test_team_lead_is_always_a_valid_recipient(team_ws: Workspace, given: str) -> None:
    sent = sending.send_message(team_ws, TEAM, given, "report", summary="r", sender="agent-a")
    assert sent.recipients == ("team-lead",)
    assert inbox(team_ws, "team-lead")[-1]["from"] == "agent-a"
    assert inbox(team_ws, "team-lead")[-1]["color"] == "red"  # the sender's colour, as Claude Code writes


@pytest.mark.parametrize("given", ["nobody", "agent-b@other-team", "agent", "@team-smoke", ""])
def test_unknown_recipient_fails_and_writes_nothing(team_ws: Workspace, given: str) -> None:
    refused_without_writing(
        team_ws,
        NotFound,
        rf"^Unknown recipient '{given}' in team 'team-smoke'$",
        lambda: sending.send_message(team_ws, TEAM, given, "x", summary="s"),
    )


def test_unknown_sender_fails_and_writes_nothing(team_ws: Workspace) -> None:
    refused_without_writing(
        team_ws,
        NotFound,
        r"^Unknown sender 'ghost' in team 'team-smoke'$",
        lambda: sending.send_message(team_ws, TEAM, "agent-a", "x", summary="s", sender="ghost"),
    )


# --- summary, text, structured -----------------------------------------------------


@pytest.mark.parametrize("summary", ["", "   "])
def test_message_needs_a_summary(team_ws: Workspace, summary: str) -> None:
    refused_without_writing(
        team_ws,
        Refused,
        r"the summary is empty .*nothing was written",
        lambda: sending.send_message(team_ws, TEAM, "agent-a", "x", summary=summary),
    )


def test_broadcast_needs_a_summary(team_ws: Workspace) -> None:
    refused_without_writing(
        team_ws,
        Refused,
        r"^Could not broadcast: the summary is empty",
        lambda: sending.broadcast(team_ws, TEAM, "x", summary=""),
    )


def test_message_needs_text(team_ws: Workspace) -> None:
    refused_without_writing(
        team_ws,
        Refused,
        r"the message text is empty; nothing was written",
        lambda: sending.send_message(team_ws, TEAM, "agent-a", "  ", summary="s"),
    )


def test_structured_messages_cannot_be_broadcast(team_ws: Workspace) -> None:
    text = ShutdownRequest(requestId="shutdown-1@agent-a", from_="team-lead").to_text()
    refused_without_writing(
        team_ws,
        Refused,
        r"structured messages \(shutdown_request\) cannot be broadcast",
        lambda: sending.broadcast(team_ws, TEAM, text, summary="s"),
    )


def test_structured_text_is_not_sent_as_a_plain_message(team_ws: Workspace) -> None:
    text = PlanApprovalRequest(requestId="p1", from_="agent-a").to_text()
    refused_without_writing(
        team_ws,
        Refused,
        r"is a structured plan_approval_request message; use",
        lambda: sending.send_message(team_ws, TEAM, "team-lead", text, summary="s"),
    )


def test_text_that_only_looks_like_json_is_a_plain_message(team_ws: Workspace) -> None:
    sending.send_message(team_ws, TEAM, "agent-a", '{"type": "not-a-kind"} and more', summary="s")
    assert inbox(team_ws, "agent-a")[-1]["text"] == '{"type": "not-a-kind"} and more'


# --- broadcast --------------------------------------------------------------------


def test_broadcast_goes_to_every_member_but_the_sender(team_ws: Workspace) -> None:
    sent = sending.broadcast(team_ws, TEAM, "standup", summary="now")
    assert sent.recipients == ("agent-a", "Agent-B")
    assert not team_ws.inbox(TEAM, "team-lead").exists()
    from_member = sending.broadcast(team_ws, TEAM, "done", summary="d", sender="AGENT-A")
    assert from_member.sender == "agent-a" and from_member.recipients == ("team-lead", "Agent-B")
    assert [m["text"] for m in inbox(team_ws, "Agent-B")] == ["standup", "done"]
    records = [json.loads(line) for line in team_ws.messages_log(TEAM).read_text().splitlines()]
    assert [r["to"] for r in records if r["type"] == "broadcast"] == [["agent-a", "Agent-B"], ["team-lead", "Agent-B"]]


# --- shutdown ---------------------------------------------------------------------


def test_shutdown_request_id_and_message_are_claude_codes(team_ws: Workspace) -> None:
    sent = handshakes.request_shutdown(team_ws, TEAM, "AGENT-A", reason="work complete")
    assert sent.request_id == "shutdown-1772366400000@agent-a"  # the fixed clock, in epoch ms
    entry = inbox(team_ws, "agent-a")[-1]
    assert entry["from"] == "team-lead" and entry["read"] is False and "summary" not in entry
    assert json.loads(entry["text"]) == {
        "type": "shutdown_request",
        "requestId": sent.request_id,
        "from": "team-lead",
        "reason": "work complete",
        "timestamp": "2026-03-01T12:00:00.000Z",
    }
    again = handshakes.request_shutdown(team_ws, TEAM, "agent-a", superseding=True)  # as a resend asks
    assert again.request_id == "shutdown-1772366400001@agent-a"  # same millisecond, still distinct


def test_a_second_shutdown_request_while_one_awaits_its_reply_is_refused(team_ws: Workspace) -> None:
    """Two requests would leave one open for good once the member answers the other;
    asking again is ``--resend``, which supersedes the first."""
    first = handshakes.request_shutdown(team_ws, TEAM, "agent-a")
    refused_without_writing(
        team_ws,
        Refused,
        rf"request {first.request_id} is still awaiting its reply; ask again under a new id with .*--resend",
        lambda: handshakes.request_shutdown(team_ws, TEAM, "agent-a"),
    )


def test_c11_the_lead_cannot_be_shut_down(team_ws: Workspace) -> None:
    refused_without_writing(
        team_ws,
        Refused,
        r"'team-lead': it is the team lead",
        lambda: handshakes.request_shutdown(team_ws, TEAM, "team-lead"),
    )


def test_a_member_cannot_request_anothers_shutdown(team_ws: Workspace) -> None:
    refused_without_writing(
        team_ws,
        Refused,
        r"only the team lead may; 'agent-a' cannot ask on another's behalf",
        lambda: handshakes.request_shutdown(team_ws, TEAM, "agent-b", sender="agent-a"),
    )


def test_reject_needs_a_reason(team_ws: Workspace) -> None:
    request = handshakes.request_shutdown(team_ws, TEAM, "agent-a").request_id
    refused_without_writing(
        team_ws,
        Refused,
        r"a reason is required; nothing was written",
        lambda: handshakes.respond_shutdown(team_ws, TEAM, request, approve=False, sender="agent-a"),
    )


def test_only_the_addressee_answers_a_shutdown_request(team_ws: Workspace) -> None:
    request = handshakes.request_shutdown(team_ws, TEAM, "agent-a").request_id
    for sender in ("Agent-B", "team-lead"):
        refused_without_writing(
            team_ws,
            Refused,
            r"it was sent to 'agent-a', not .* on another's behalf",
            lambda: handshakes.respond_shutdown(team_ws, TEAM, request, approve=True, sender=sender),
        )


def test_an_unknown_request_id_is_not_found(team_ws: Workspace) -> None:
    refused_without_writing(
        team_ws,
        NotFound,
        r"^No shutdown_request 'shutdown-9@agent-a' in team 'team-smoke'$",
        lambda: handshakes.respond_shutdown(team_ws, TEAM, "shutdown-9@agent-a", approve=True, sender="agent-a"),
    )


def test_approval_writes_shutdown_approved_and_takes_the_member_offline(team_ws: Workspace) -> None:
    request = handshakes.request_shutdown(team_ws, TEAM, "agent-a").request_id
    sent = handshakes.respond_shutdown(team_ws, TEAM, request, approve=True, sender="agent-a", to="team-lead")
    assert sent.type == "shutdown_approved" and sent.recipients == ("team-lead",)
    payload = json.loads(inbox(team_ws, "team-lead")[-1]["text"])
    assert payload == {
        "type": "shutdown_approved",
        "requestId": request,
        "from": "agent-a",
        "timestamp": "2026-03-01T12:00:00.000Z",
        "paneId": "in-process",
        "backendType": "in-process",
    }
    assert teams.read_team(team_ws, TEAM).member("agent-a").isActive is False
    log = [json.loads(line) for line in team_ws.messages_log(TEAM).read_text().splitlines()]
    assert [r["type"] for r in log][-2:] == ["shutdown_approved", "member_deactivated"]
    refused_without_writing(
        team_ws,
        Refused,
        r"already answered \(shutdown_approved at",
        lambda: handshakes.respond_shutdown(team_ws, TEAM, request, approve=False, reason="x", sender="agent-a"),
    )


def test_rejection_keeps_the_member_active_and_carries_the_reason(team_ws: Workspace) -> None:
    request = handshakes.request_shutdown(team_ws, TEAM, "agent-a").request_id
    handshakes.respond_shutdown(team_ws, TEAM, request, approve=False, reason="still testing", sender="agent-a")
    assert json.loads(inbox(team_ws, "team-lead")[-1]["text"])["reason"] == "still testing"
    assert teams.read_team(team_ws, TEAM).member("agent-a").isActive is True


def test_an_answer_goes_to_the_requester_only(team_ws: Workspace) -> None:
    request = handshakes.request_shutdown(team_ws, TEAM, "agent-a").request_id
    refused_without_writing(
        team_ws,
        Refused,
        r"the answer goes to the requester 'team-lead'",
        lambda: handshakes.respond_shutdown(team_ws, TEAM, request, approve=True, sender="agent-a", to="agent-b"),
    )


# --- plan approval ----------------------------------------------------------------


def _plan_request(ws: Workspace, request_id: str) -> None:
    sending.send_structured(
        ws,
        TEAM,
        "team-lead",
        PlanApprovalRequest(
            requestId=request_id,
            from_="Agent-B",
            planFilePath="/p.md",
            planContent="# plan",
            timestamp="2026-03-01T11:00:00.000Z",
        ),
        sender="Agent-B",
    )


def test_plan_reject_needs_feedback(team_ws: Workspace) -> None:
    _plan_request(team_ws, "plan-1")
    refused_without_writing(
        team_ws,
        Refused,
        r"feedback is required to reject; nothing was written",
        lambda: handshakes.answer_plan(team_ws, TEAM, "agent-b", approve=False),
    )


def test_plan_answer_defaults_to_the_latest_unanswered_request(team_ws: Workspace) -> None:
    _plan_request(team_ws, "plan-1")
    _plan_request(team_ws, "plan-2")
    first = handshakes.answer_plan(team_ws, TEAM, "agent-b", approve=False, feedback="add a rollback")
    assert first.request_id == "plan-2"
    second = handshakes.answer_plan(team_ws, TEAM, "agent-b", approve=True)
    assert second.request_id == "plan-1"
    answers = [json.loads(m["text"]) for m in inbox(team_ws, "Agent-B")]
    assert answers == [
        {
            "type": "plan_approval_response",
            "requestId": "plan-2",
            "approved": False,
            "feedback": "add a rollback",
            "timestamp": "2026-03-01T12:00:00.000Z",
        },
        {
            "type": "plan_approval_response",
            "requestId": "plan-1",
            "approved": True,
            "timestamp": "2026-03-01T12:00:00.000Z",
        },
    ]
    assert all(m["read"] for m in inbox(team_ws, "team-lead"))  # the human saw them
    refused_without_writing(
        team_ws,
        NotFound,
        r"^No unanswered plan_approval_request from 'Agent-B'",
        lambda: handshakes.answer_plan(team_ws, TEAM, "agent-b", approve=True),
    )
    refused_without_writing(
        team_ws,
        Refused,
        r"already answered",
        lambda: handshakes.answer_plan(team_ws, TEAM, "agent-b", approve=True, request_id="plan-1"),
    )


def test_only_the_lead_answers_plans(team_ws: Workspace) -> None:
    _plan_request(team_ws, "plan-1")
    refused_without_writing(
        team_ws,
        Refused,
        r"only the team lead answers plan approval requests",
        lambda: handshakes.answer_plan(team_ws, TEAM, "agent-b", approve=True, sender="agent-a"),
    )


# --- injection --------------------------------------------------------------------


def test_inject_puts_shutdown_requests_first_and_marks_everything_read(team_ws: Workspace) -> None:
    sending.send_message(team_ws, TEAM, "agent-a", 'say "hi" & <wave>', summary='a "quoted" summary')
    sending.send_structured(
        team_ws, TEAM, "agent-a", IdleNotification(from_="Agent-B", idleReason="available"), sender="Agent-B"
    )
    request = handshakes.request_shutdown(team_ws, TEAM, "agent-a").request_id
    taken = injection.inject(team_ws, TEAM, "agent-a")
    assert [item.kind for item in taken] == ["shutdown_request", "plain", "idle_notification"]
    assert taken[0].request_id == request and taken[0].recipient == "agent-a" and taken[0].team == TEAM
    assert taken[1].block == (
        '<teammate-message teammate_id="team-lead" summary="a &quot;quoted&quot; summary">\n'
        'say "hi" & <wave>\n</teammate-message>'
    )
    assert taken[2].block.startswith(
        '<teammate-message teammate_id="Agent-B" color="blue">\n{"type":"idle_notification"'
    )
    assert all(m["read"] for m in inbox(team_ws, "agent-a"))
    assert injection.inject(team_ws, TEAM, "agent-a") == []


def test_listing_an_inbox_marks_nothing(team_ws: Workspace) -> None:
    sending.send_message(team_ws, TEAM, "agent-a", "x", summary="s")
    before = snapshot(team_ws.root)
    assert [entry.message.text for entry in reading.list_inbox(team_ws, TEAM, "AGENT-A", unread_only=True)] == ["x"]
    assert snapshot(team_ws.root) == before


# --- deactivate, delete -------------------------------------------------------------


def test_deactivate_is_guarded_by_an_approved_shutdown(team_ws: Workspace) -> None:
    refused_without_writing(
        team_ws,
        Refused,
        r"has not approved a shutdown\. Ask first with `teamdeck shutdown team-smoke agent-a`",
        lambda: handshakes.deactivate_member(team_ws, TEAM, "agent-a"),
    )
    refused_without_writing(
        team_ws,
        Refused,
        r"it is the team lead",
        lambda: handshakes.deactivate_member(team_ws, TEAM, "team-lead", force=True),
    )
    assert handshakes.deactivate_member(team_ws, TEAM, "agent-a", force=True) == "agent-a"
    refused_without_writing(
        team_ws,
        Refused,
        r"already inactive",
        lambda: handshakes.deactivate_member(team_ws, TEAM, "agent-a", force=True),
    )
    log = [json.loads(line) for line in team_ws.messages_log(TEAM).read_text().splitlines()]
    assert (
        log[-1]["type"] == "member_deactivated"
        and log[-1]["member"] == "agent-a"
        and log[-1]["reason"] == "forced by hand"
    )


def test_delete_is_refused_while_teammates_are_active_naming_them_all(team_ws: Workspace) -> None:
    config_before = team_ws.team_config(TEAM).read_bytes()
    with pytest.raises(Refused) as caught:
        teams.delete_team(team_ws, TEAM)
    assert str(caught.value).startswith(
        "Cannot cleanup team with 2 active member(s): agent-a, Agent-B. "
        "Use requestShutdown to gracefully terminate teammates first."
    )
    assert "teamdeck shutdown team-smoke MEMBER" in str(caught.value)
    assert team_ws.team_config(TEAM).read_bytes() == config_before
    log = [json.loads(line) for line in team_ws.messages_log(TEAM).read_text().splitlines()]
    assert log[-1]["type"] == "team_delete_refused" and log[-1]["blockers"] == ["agent-a", "Agent-B"]


def test_delete_removes_the_team_and_its_task_list_once_members_are_offline(team_ws: Workspace) -> None:
    for member in ("agent-a", "Agent-B"):
        handshakes.deactivate_member(team_ws, TEAM, member, force=True)
    removed = teams.delete_team(team_ws, TEAM)
    assert removed == ["teams/team-smoke", "tasks/team-smoke"]
    assert list(team_ws.teams_dir.iterdir()) == [] and list(team_ws.tasks_dir.iterdir()) == []


def test_create_refuses_a_name_taken_by_a_teamdeck_task(ws: Workspace) -> None:
    (ws.tasks_dir / "t1").mkdir(parents=True)
    (ws.tasks_dir / "t1" / "task.yaml").write_text("id: t1\n")
    refused_without_writing(ws, Refused, r"tasks/t1 is already a teamdeck task", lambda: teams.create_team(ws, "T1"))


def test_create_writes_a_claude_code_team(ws: Workspace) -> None:
    config = teams.create_team(ws, "My Team!", description="d", cwd="/repo")
    assert config.name == "my-team-"
    raw = json.loads(ws.team_config("my-team-").read_text())
    assert raw["leadAgentId"] == "team-lead@my-team-" and raw["createdAt"] == 1772366400000
    assert raw["members"] == [
        {
            "agentId": "team-lead@my-team-",
            "name": "team-lead",
            "agentType": "team-lead",
            "joinedAt": 1772366400000,
            "tmuxPaneId": "",
            "cwd": "/repo",
            "subscriptions": [],
        }
    ]
    assert (ws.claude_tasks_dir("my-team-") / ".lock").is_file() and ws.inboxes_dir("my-team-").is_dir()
    refused_without_writing(ws, Refused, r"already exists", lambda: teams.create_team(ws, "my team!"))


def test_add_member_refuses_duplicates_and_brings_back_inactive_ones(team_ws: Workspace) -> None:
    refused_without_writing(
        team_ws, Refused, r"'Agent-B' is already an active member", lambda: teams.add_member(team_ws, TEAM, "AGENT-B")
    )
    refused_without_writing(
        team_ws, Refused, r"that is the team lead's name", lambda: teams.add_member(team_ws, TEAM, "Team-Lead")
    )
    handshakes.deactivate_member(team_ws, TEAM, "agent-a", force=True)
    member = teams.add_member(team_ws, TEAM, "agent-a")
    assert member.isActive and member.color == "red"
    assert len(teams.read_team(team_ws, TEAM).members) == 3


def test_b13_config_rewrites_keep_unknown_fields(team_ws: Workspace) -> None:
    raw = json.loads(team_ws.team_config(TEAM).read_text())
    raw["futureTeamField"] = {"x": 1}
    raw["members"][1]["futureMemberField"] = [1, 2]
    team_ws.team_config(TEAM).write_text(json.dumps(raw))
    handshakes.deactivate_member(team_ws, TEAM, "agent-a", force=True)
    after = json.loads(team_ws.team_config(TEAM).read_text())
    raw["members"][1]["isActive"] = False
    assert after == raw


# --- read-only --------------------------------------------------------------------


@pytest.mark.parametrize(
    "action",
    [
        lambda ws: teams.create_team(ws, "other"),
        lambda ws: teams.add_member(ws, TEAM, "agent-c"),
        lambda ws: teams.delete_team(ws, TEAM),
        lambda ws: sending.send_message(ws, TEAM, "agent-a", "x", summary="s"),
        lambda ws: sending.broadcast(ws, TEAM, "x", summary="s"),
        lambda ws: handshakes.request_shutdown(ws, TEAM, "agent-a"),
        lambda ws: handshakes.respond_shutdown(ws, TEAM, "shutdown-1@agent-a", approve=True, sender="agent-a"),
        lambda ws: handshakes.answer_plan(ws, TEAM, "agent-b", approve=True),
        lambda ws: injection.inject(ws, TEAM, "agent-a"),
        lambda ws: handshakes.deactivate_member(ws, TEAM, "agent-a", force=True),
        lambda ws: sending.send_structured(ws, TEAM, "team-lead", IdleNotification(from_="agent-a"), sender="agent-a"),
    ],
    ids=[
        "create",
        "add",
        "delete",
        "send",
        "broadcast",
        "shutdown",
        "respond",
        "plan",
        "inject",
        "deactivate",
        "structured",
    ],
)
def test_read_only_refuses_every_write(team_ws: Workspace, action) -> None:
    sending.send_message(team_ws, TEAM, "agent-a", "unread", summary="s")
    locked = team_ws._replace(read_only=True, read_only_reason="--read-only")
    refused_without_writing(
        locked, ReadOnly, r"workspace is read-only \(--read-only\); nothing was written", lambda: action(locked)
    )


def test_an_approval_whose_deactivation_fails_is_still_reported_delivered(team_ws: Workspace, monkeypatch) -> None:
    from teamdeck.errors import Busy

    request = handshakes.request_shutdown(team_ws, TEAM, "agent-a").request_id

    def busy(*args, **kwargs):
        raise Busy(
            "teams/team-smoke/config.json is busy: lock config.json.lock held by another writer for 12 s. Try again."
        )

    monkeypatch.setattr("teamdeck.formats.claude_code.teamfiles.transact_config", busy)
    sent = handshakes.respond_shutdown(team_ws, TEAM, request, approve=True, sender="agent-a")
    assert sent.confirmed and json.loads(inbox(team_ws, "team-lead")[-1]["text"])["type"] == "shutdown_approved"
    assert sent.warnings == (
        "the approval was delivered but 'agent-a' could not be marked inactive (teams/team-smoke/"
        "config.json is busy: lock config.json.lock held by another writer for 12 s. Try again.); "
        "run `teamdeck member deactivate team-smoke agent-a`",
    )
