"""The protocol functions behind the MCP tools, in-process: request_decision
and get_decision (a gate opened as a join opens one), read_conversation (inboxes plus
messages.jsonl), agent_watch (what wait_for_agent waits for) and the MCP heartbeat the
roster shows."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from teamdeck.clock import fixed_clock, iso
from teamdeck.errors import NotFound, Refused
from teamdeck.model.connection import STALE_S
from teamdeck.model.team import IdleNotification
from teamdeck.protocol.coordination import agent_watch
from teamdeck.protocol.coordination.conversation import read_conversation
from teamdeck.protocol.coordination.decisions import get_decision, request_decision
from teamdeck.protocol.coordination.delegation import delegate, report
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import MAX_GATE_QUESTIONS, join_task
from teamdeck.protocol.task.lifecycle import transition
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.protocol.team.connections import announce
from teamdeck.protocol.team.messaging.sending import broadcast, send_message, send_structured
from teamdeck.protocol.team.teamlog import log, new_record
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh

TEAM = "alpha"


@pytest.fixture
def team_ws(ws: Workspace) -> Workspace:
    create_team(ws, TEAM)
    add_member(ws, TEAM, "coder")
    add_member(ws, TEAM, "reviewer")
    create_task(ws, "t1", "Build the parser", team=TEAM, state="approved")
    delegate(ws, "t1", "coder")
    return ws


def files(ws: Workspace) -> dict[str, bytes]:
    return {
        str(path.relative_to(ws.root)): path.read_bytes()
        for path in sorted(ws.root.rglob("*"))
        if path.is_file() and not path.name.endswith(".lock")
    }


# --- request_decision / get_decision ----------------------------------------------------


def test_a_request_opens_a_gate_as_a_blocked_report_would(team_ws: Workspace) -> None:
    asked = request_decision(team_ws, "t1", "coder", reason="which dialect?", questions=["JSON5?", " ", "Comments?"])
    task = load_task(team_ws, "t1")
    assert asked.gate.id == "g-coder-1" and task.state == "input-required"
    assert (asked.gate.kind, asked.gate.agentInstance, asked.gate.outputDigest) == ("worker-blocked", "coder", None)
    assert asked.gate.questions == ["JSON5?", "Comments?"]
    assert asked.gate.reason == "worker coder asks for a decision: which dialect?"
    assert [event.type for event in asked.events] == ["gate.blocked", "task.state_changed"]
    assert asked.events[0].actor == "agent:coder"
    notes = team_ws.human_notes("t1").read_text()
    assert "<!-- teamdeck:gate g-coder-1 -->" in notes and "Comments?" in notes
    assert not team_ws.final_output("t1", "coder").exists()
    assert get_decision(team_ws, "t1", "g-coder-1").state == "blocked"


def test_joins_leave_a_requested_gate_alone_and_number_their_own_after_it(team_ws: Workspace) -> None:
    request_decision(team_ws, "t1", "coder", reason="scope", questions=["JSON5?"])
    write_final_output(team_ws, "t1", "coder", {"status": "blocked", "summary": "stuck", "questions": ["Why?"]})
    joined = join_task(team_ws, "t1")
    assert joined.gates_opened == ["g-coder-2"]
    task = load_task(team_ws, "t1")
    requested = task.gate("g-coder-1")
    assert requested is not None and requested.questions == ["JSON5?"] and requested.state == "blocked"
    assert join_task(team_ws, "t1").events == []  # idempotent as before


def test_a_decision_is_read_back_and_the_task_resumes(team_ws: Workspace) -> None:
    gate = request_decision(team_ws, "t1", "coder", reason="scope", questions=["JSON5?"]).gate
    decide_gate(team_ws._replace(actor="human:alex"), "t1", gate.id, "reject", note="no JSON5")
    decided = get_decision(team_ws, "t1", gate.id)
    assert (decided.state, decided.decidedBy, decided.note) == ("rejected", "human:alex", "no JSON5")
    assert load_task(team_ws, "t1").state == "working"


def test_questions_are_capped_like_a_joins(team_ws: Workspace) -> None:
    many = [f"question {n}" for n in range(MAX_GATE_QUESTIONS + 3)]
    gate = request_decision(team_ws, "t1", "coder", reason="many", questions=many).gate
    assert len(gate.questions) == MAX_GATE_QUESTIONS + 1 and gate.questions[-1].startswith("(+3 more questions")


@pytest.mark.parametrize(
    "reason, questions, task, message",
    [
        (" ", ["q"], "t1", "reason is empty"),
        ("r", [], "t1", "at least one"),
        ("r", ["q"], "nope", "No task 'nope'"),
    ],
)
def test_a_bad_request_writes_nothing(team_ws: Workspace, reason, questions, task, message) -> None:
    before = files(team_ws)
    with pytest.raises((Refused, NotFound), match=message):
        request_decision(team_ws, task, "coder", reason=reason, questions=questions)
    assert files(team_ws) == before


def test_no_request_on_a_final_task(team_ws: Workspace) -> None:
    transition(team_ws, "t1", "canceled", reason="not needed")
    before = files(team_ws)
    with pytest.raises(Refused, match="it is canceled"):
        request_decision(team_ws, "t1", "coder", reason="r", questions=["q"])
    assert files(team_ws) == before


def test_an_unknown_gate_is_named(team_ws: Workspace) -> None:
    with pytest.raises(NotFound, match="no gate 'g-x'"):
        get_decision(team_ws, "t1", "g-x")


# --- read_conversation -----------------------------------------------------------------


def test_a_conversation_has_what_the_member_sent_and_received_once_each(team_ws: Workspace) -> None:
    send_message(team_ws, TEAM, "coder", "start here", summary="hi")
    send_message(team_ws, TEAM, "team-lead", "on it", summary="ack", sender="coder")
    broadcast(team_ws, TEAM, "lunch", summary="food", sender="coder")
    send_message(team_ws, TEAM, "reviewer", "not about coder", summary="x")
    talk = read_conversation(team_ws, TEAM, "CODER")
    assert talk.member == "coder"
    rows = [(row.direction, row.kind, row.sender, row.recipients, row.delivered) for row in talk.rows]
    assert ("received", "task_assignment", "team-lead", ("coder",), True) in rows
    assert ("received", "plain", "team-lead", ("coder",), True) in rows
    assert ("sent", "plain", "coder", ("team-lead",), True) in rows
    assert ("sent", "plain", "coder", ("reviewer", "team-lead"), True) in [
        (d, k, s, tuple(sorted(r)), dl) for d, k, s, r, dl in rows
    ]
    assert talk.total == 4 and len(rows) == 4


def test_a_message_only_the_log_has_is_kept_as_not_delivered(team_ws: Workspace) -> None:
    at = "2026-03-01T12:00:00.000Z"
    record = new_record(team_ws, "message", from_="team-lead", to=["coder"], summary="s", timestamp=at, text="lost")
    log(team_ws, TEAM, record)  # logged, but the inbox write never happened
    rows = read_conversation(team_ws, TEAM, "coder").rows
    lost = next(row for row in rows if row.text == "lost")
    assert lost.delivered is False and lost.recipients == ("coder",)


def test_a_message_claude_code_drained_stays_delivered(team_ws: Workspace) -> None:
    send_message(team_ws, TEAM, "coder", "drained later", summary="s")
    team_ws.inbox(TEAM, "coder").write_text("[]")  # Claude Code delivered it, then drained the inbox
    rows = read_conversation(team_ws, TEAM, "coder").rows
    drained = next(row for row in rows if row.text == "drained later")
    assert drained.delivered is True and drained.read is True and drained.recipients == ("coder",)


def test_idle_notifications_fold_and_pages_go_back(ws: Workspace) -> None:
    create_team(ws, TEAM)
    add_member(ws, TEAM, "coder")
    moments = iter(ws.clock() + timedelta(seconds=n) for n in range(100))
    ticking = ws._replace(clock=lambda: next(moments))
    send_message(ticking, TEAM, "coder", "first", summary="1")
    for _ in range(3):
        send_structured(ticking, TEAM, "team-lead", IdleNotification(idleReason="available"), sender="coder")
    send_message(ticking, TEAM, "coder", "after", summary="2")
    talk = read_conversation(ticking, TEAM, "coder")
    assert [(row.kind, row.count) for row in talk.rows] == [("plain", 1), ("idle_notification", 3), ("plain", 1)]
    page = read_conversation(ticking, TEAM, "coder", limit=2)
    assert [row.index for row in page.rows] == [1, 2] and page.before == 1
    first = read_conversation(ticking, TEAM, "coder", limit=2, before=page.before)
    assert [row.text for row in first.rows] == ["first"] and first.before is None


def test_an_unknown_member_has_no_conversation(team_ws: Workspace) -> None:
    with pytest.raises(NotFound, match="Unknown member 'nobody'"):
        read_conversation(team_ws, TEAM, "nobody")


# --- agent_watch -------------------------------------------------------------------------


def test_a_final_report_newer_than_the_assignment_settles_a_wait(team_ws: Workspace) -> None:
    assert agent_watch.settled(agent_watch.observe(team_ws, TEAM, "coder", "t1")) is None
    report(team_ws, "t1", "coder", status="completed", summary="done")
    done = agent_watch.settled(agent_watch.observe(team_ws, TEAM, "coder", "t1"))
    assert done is not None and done["event"] == "reported" and done["report"]["summary"] == "done"


def test_a_report_older_than_a_new_assignment_does_not(team_ws: Workspace) -> None:
    report(team_ws, "t1", "coder", status="completed", summary="first round")
    later = team_ws._replace(clock=fixed_clock(team_ws.clock() + timedelta(minutes=5)))
    delegate(later, "t1", "coder", note="again, with tests")
    assert agent_watch.settled(agent_watch.observe(later, TEAM, "coder", "t1")) is None


def test_what_happened_reports_reports_idles_and_going_offline(team_ws: Workspace) -> None:
    before = agent_watch.observe(team_ws, TEAM, "coder")
    assert agent_watch.what_happened(before, agent_watch.observe(team_ws, TEAM, "coder")) is None
    send_structured(team_ws, TEAM, "team-lead", IdleNotification(idleReason="available"), sender="coder")
    idle = agent_watch.what_happened(before, agent_watch.observe(team_ws, TEAM, "coder"))
    assert idle is not None and idle["event"] == "idle" and idle["idleReason"] == "available"
    report(team_ws, "t1", "coder", status="blocked", summary="stuck", questions=["why?"])
    reported = agent_watch.what_happened(before, agent_watch.observe(team_ws, TEAM, "coder"))
    assert reported is not None and (reported["event"], reported["task"]) == ("reported", "t1")
    config = team_ws.team_config(TEAM)
    raw = json.loads(config.read_text())
    raw["members"][1]["isActive"] = False
    config.write_text(json.dumps(raw))
    assert agent_watch.settled(agent_watch.observe(team_ws, TEAM, "coder"))["event"] == "offline"


# --- the heartbeat the roster shows ------------------------------------------------------


def test_a_fresh_heartbeat_shows_the_member_connected_and_a_stale_one_does_not(team_ws: Workspace) -> None:
    snapshot = build_snapshot(team_ws)
    assert snapshot.member(f"{TEAM}/coder").connected == ""
    beat = announce(team_ws, TEAM, "Coder", transport="streamable-http", url="http://127.0.0.1:9/mcp")
    snapshot = refresh(snapshot, [team_ws.connection_file(TEAM, "coder")])
    assert snapshot.member(f"{TEAM}/coder").connected == "http://127.0.0.1:9/mcp"
    assert snapshot.member(f"{TEAM}/reviewer").connected == ""
    later = team_ws._replace(clock=fixed_clock(team_ws.clock() + timedelta(seconds=STALE_S + 1)))
    assert build_snapshot(later).member(f"{TEAM}/coder").connected == ""
    beat.called()
    beat.beat()
    written = json.loads(team_ws.connection_file(TEAM, "coder").read_text())
    assert written["calls"] == 1 and written["beatAt"] == iso(team_ws.clock())
    beat.end()
    snapshot = refresh(snapshot, [team_ws.connection_file(TEAM, "coder")])
    assert snapshot.member(f"{TEAM}/coder").connected == ""


def test_an_unreadable_heartbeat_is_a_problem_not_a_crash(team_ws: Workspace) -> None:
    path = team_ws.connection_file(TEAM, "coder")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    snapshot = build_snapshot(team_ws)
    assert snapshot.member(f"{TEAM}/coder").connected == ""
    assert any("connections" in problem.path for problem in snapshot.problems)
