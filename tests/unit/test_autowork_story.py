"""Work that moves by itself, the whole story without a command
typed: a plan of two waves goes from import and approval to COMPLETED through
:func:`~teamdeck.protocol.autowork.step.supervise` alone, with one NEEDS_CHANGES round;
a member that never answers is nudged twice with backoff, then its decision waits in
the queue, and reassigning it to an idle member finishes the plan.

The crafters are small scripted agents run by the test (the runner is not
on main yet): each takes its unread inbox (marking it read, as a runtime does) and
answers assignments and recommendations by reporting. Time moves by the workspace's
clock, so nothing sleeps. Every step is an event (F12), and a step run again does nothing more (C7).
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from support.parser_plan import GRAMMAR, LEXER, PARSER, PLAN

from teamdeck.decisions.registry import answer_decision, find_decision
from teamdeck.formats.claude_code.inbox import take_unread
from teamdeck.model.settings import AutoworkSettings
from teamdeck.model.team import decode_text
from teamdeck.protocol.autowork.step import ACTOR, supervise
from teamdeck.protocol.coordination.delegation import report
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.effects.owed import stalled_work
from teamdeck.protocol.guardians.verification import configure_guardian
from teamdeck.protocol.plans.importer import import_plan
from teamdeck.protocol.task.planfile import load_plan, plan_events
from teamdeck.protocol.task.taskfile import load_task, read_events
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot

MINUTE = 60.0


class Clock:
    """Real time at the start (the files' own times stay in the past), then moved by the test."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def _world(root: Path) -> tuple[Workspace, Clock]:
    clock = Clock()
    ws = Workspace.at(root, clock=clock, actor="human:tester")
    create_team(ws, "crew", description="parser crew")
    for member in ("alice", "bob", "carol"):
        add_member(ws, "crew", member)
    (root / ".teamdeck.yaml").write_text("autowork:\n  stallAfterSeconds: 1200\n  nudges: 2\n  backoff: 2\n")
    import_plan(ws, PLAN, source="parser.md", team="crew")
    # the lexer's check asks for changes (exit 3) until lexer.ok exists
    check = root / "check_lexer.py"
    check.write_text(
        "import pathlib, sys\n"
        "if not pathlib.Path('lexer.ok').exists():\n"
        "    print('write lexer.ok: the lexer has no tests yet')\n"
        "    sys.exit(3)\n"
    )
    configure_guardian(ws, LEXER, code="command", command=[sys.executable, str(check)], cwd=".", needs_changes_exit=3)
    return ws, clock


def _agent(ws: Workspace, member: str, *, fix: Path | None = None) -> list[str]:
    """One turn of a scripted crafter: take the unread inbox; report on each assignment,
    and on recommendations (after making the fix). Returns the task ids reported."""
    reported = []
    for raw in take_unread(ws.inbox("crew", member)):
        kind = decode_text(str(raw.get("text", "")))
        task_id = getattr(kind, "taskId", None)
        if task_id is None and "asks for changes to task" in str(raw.get("text", "")):
            task_id = str(raw["text"]).split("asks for changes to task ", 1)[1].split(" ", 1)[0]
            if fix is not None:
                fix.write_text("ok")
        if task_id:
            report(ws, task_id, member, status="completed", summary=f"{member} did {task_id}")
            reported.append(task_id)
    return reported


def test_a_two_wave_plan_completes_by_itself_with_a_changes_round_and_a_reassigned_stall(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path)
    decide_gate(ws, "parser", "plan-approval", "approve", "go")  # a person approves; nothing else is typed

    first = supervise(ws, isolation="thread")
    assert load_plan(ws, "parser").state == "EXECUTING"
    assert {load_task(ws, LEXER).workers[0].member, load_task(ws, GRAMMAR).workers[0].member} == {"alice", "bob"}
    assert any(step.kind == "plan" and "wave 1 started" in step.cause for step in first.steps)
    assert supervise(ws, isolation="thread").steps == []  # idempotent: nothing more is due

    lexer_by = load_task(ws, LEXER).workers[0].member
    stalled_by = load_task(ws, GRAMMAR).workers[0].member
    assert _agent(ws, lexer_by) == [LEXER]  # the grammar's crafter never answers

    # the wave waits for the grammar; the clock alone makes the stall due
    clock.advance(19 * MINUTE)
    assert supervise(ws, isolation="thread").steps == []
    clock.advance(2 * MINUTE)
    nudged = supervise(ws, isolation="thread").steps
    assert [(step.kind, step.subject) for step in nudged] == [("nudge", GRAMMAR)]
    assert "has not read its assignment of" in nudged[0].cause
    clock.advance(30 * MINUTE)  # the second wait is 40 min (backoff 2): not yet
    assert supervise(ws, isolation="thread").steps == []
    clock.advance(11 * MINUTE)
    assert [step.kind for step in supervise(ws, isolation="thread").steps] == ["nudge"]
    clock.advance(70 * MINUTE)  # the third wait is 80 min
    assert supervise(ws, isolation="thread").steps == []
    clock.advance(11 * MINUTE)
    asked = supervise(ws, isolation="thread").steps
    assert [step.kind for step in asked] == ["stall-decision"]
    nudges = [event for event in read_events(ws, GRAMMAR) if event.type == "member.nudged"]
    assert [(event.payload["attempt"], event.actor) for event in nudges] == [(1, ACTOR), (2, ACTOR)]
    inbox = [raw for raw in (ws.inbox("crew", stalled_by)).read_text().split("Reminder (")][1:]
    assert len(inbox) == 2  # two reminders in the member's inbox, each waking it through the runner

    # the decision is in the queue, saying why, offering the idle member
    snapshot = build_snapshot(ws)
    decision = find_decision(snapshot, f"task:{GRAMMAR}:stall-{stalled_by}-1")
    assert decision.reason.startswith(f"{stalled_by} has not read its assignment of {GRAMMAR} for 2 h 23 min, 2 nudges")
    assert "(idle now: alice, carol)" in decision.questions[0]  # alice reported: she is free again
    roster = next(member for member in snapshot.teams[0].members if member.name == stalled_by)
    assert roster.markers == (f"stalled: {decision.reason}",)  # the roster says why
    stall = stalled_work(ws, AutoworkSettings(), clock())
    assert [(each.member, each.gate_id) for each in stall] == [(stalled_by, f"stall-{stalled_by}-1")]

    answer, answered = answer_decision(ws, decision, "approve", "carol")
    assert "reassigned to carol" in answered.summary
    grammar = load_task(ws, GRAMMAR)
    assert [worker.member for worker in grammar.workers] == ["carol"]
    assert _agent(ws, "carol") == [GRAMMAR]
    assert all(not member.markers for member in build_snapshot(ws).teams[0].members)

    # wave 1 is verified by itself: the lexer needs changes, the grammar passes
    clock.advance(MINUTE)
    verified = supervise(ws, isolation="thread")
    assert load_task(ws, GRAMMAR).state == "done"
    assert load_task(ws, LEXER).state == "working"
    assert load_plan(ws, "parser").state == "EXECUTING" and load_plan(ws, "parser").currentWave == 1
    assert any("NEEDS_CHANGES" in step.summary for step in verified.steps)
    clock.advance(MINUTE)  # the crafter answers a minute later (a report from the verdict's own moment is the old one)
    assert _agent(ws, lexer_by, fix=tmp_path / "lexer.ok") == [LEXER]

    supervise(ws, isolation="thread")
    plan = load_plan(ws, "parser")
    assert (plan.state, plan.currentWave) == ("EXECUTING", 2)
    crafter = load_task(ws, PARSER).workers[0].member
    assert crafter in ("alice", "bob", "carol")
    assert _agent(ws, crafter) == [PARSER]

    clock.advance(MINUTE)
    supervise(ws, isolation="thread")
    assert load_plan(ws, "parser").state == "COMPLETED"
    assert load_task(ws, "parser").state == "done"
    # every move of the plan after its approval is automatic, with its cause
    automatic = [event for event in plan_events(ws, "parser") if event.type == "plan.state_changed"][1:]
    assert automatic and all(event.actor == ACTOR and event.payload["reason"] for event in automatic)
