"""The supervisor's loop (seed 003): assign, start, record, apply; resuming after crashes."""

from __future__ import annotations

import json

import pytest

from teamdeck.errors import NotFound, Refused
from teamdeck.model.guardian import GuardianResult
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.guardians import registry
from teamdeck.protocol.guardians.verdict_history import list_assignments, list_verdicts
from teamdeck.protocol.guardians.verification import configure_guardian, fail_gate_id, verify
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.lifecycle import transition, transition_event
from teamdeck.protocol.task.taskfile import load_task, read_events, transact
from teamdeck.store.jsonl import append_record

SEED_EVENTS = [
    "task.ready_for_verification",
    "guardian.assigned",
    "task.state_changed",
    "guardian.verification_started",
    "task.state_changed",
    "guardian.verdict_recorded",
    "guardian.verdict_applied",
    "task.state_changed",
]
"""Seed 003's event list, in the order one verification appends it."""


class Scripted:
    """A guardian that answers what the test says (and counts its runs)."""

    answer: GuardianResult = GuardianResult(status="PASS")
    runs = 0

    def verify(self, context):
        Scripted.runs += 1
        return Scripted.answer


@pytest.fixture
def scripted(monkeypatch):
    monkeypatch.setattr(registry, "_EXTRA", {"scripted": Scripted})
    Scripted.runs = 0
    Scripted.answer = GuardianResult(status="PASS")
    return Scripted


def _verify(ws, task_id="t1", **options):
    return verify(ws, task_id, guardian=options.pop("guardian", "scripted"), isolation="thread", **options)


def test_pass_moves_the_task_to_verified_with_the_seed_events_in_order(ws, scripted):
    create_task(ws, "t1", "T")
    run = _verify(ws, reason="ready")
    assert run.task.state == "verified" and run.verdict.status == "PASS"
    assert [event.type for event in run.events] == SEED_EVENTS
    moves = [(e.payload["from"], e.payload["to"]) for e in run.events if e.type == "task.state_changed"]
    assert moves == [("working", "verifying"), ("verifying", "guard-review"), ("guard-review", "verified")]
    assert run.task.verification.model_dump() == {
        "assignment": run.assignment.id,
        "guardian": "scripted",
        "step": "applied",
        "verdict": run.verdict.id,
        "status": "PASS",
        "appliedAt": run.events[-1].ts,
    }
    assert run.assignment.reason == {"why": "ready", "state": "working"}


def test_records_are_write_once_files_equal_to_what_the_events_carry(ws, scripted):
    create_task(ws, "t1", "T")
    run = _verify(ws)
    assignment_file = ws.assignment_file("t1", run.assignment.id)
    verdict_file = ws.verdict_file("t1", run.verdict.id)
    assert json.loads(assignment_file.read_text()) == run.assignment.model_dump(mode="json")
    recorded = next(e for e in read_events(ws, "t1") if e.type == "guardian.verdict_recorded")
    assert json.loads(verdict_file.read_text()) == recorded.payload["verdict"]
    assert list_assignments(ws, "t1") == ([run.assignment], [])
    assert list_verdicts(ws, "t1") == ([run.verdict], [])


def test_complete_also_marks_a_passed_task_done(ws, scripted):
    create_task(ws, "t1", "T")
    run = _verify(ws, complete=True)
    assert run.task.state == "done" and [e.type for e in run.events][-1] == "task.state_changed"


def test_fail_blocks_the_task_with_a_verification_failed_gate_in_human_notes(ws, scripted):
    from teamdeck.model.guardian import Flag

    scripted.answer = GuardianResult(
        flags=[Flag(code="exit-code", severity="fail", message="pytest exited with code 1")]
    )
    create_task(ws, "t1", "T")
    run = _verify(ws)
    assert run.task.state == "input-required" and run.gate_id == fail_gate_id(run.assignment.id)
    gate = run.task.gate(run.gate_id)
    assert gate.kind == "verification-failed" and gate.state == "blocked"
    assert "said FAIL" in gate.reason and "pytest exited with code 1" in gate.reason
    assert [e.type for e in run.events][-2:] == ["gate.blocked", "task.state_changed"]
    assert run.gate_id in ws.human_notes("t1").read_text()


def test_needs_changes_sends_the_task_back_to_working(ws, scripted):
    scripted.answer = GuardianResult(status="NEEDS_CHANGES", recommendations=["add tests"])
    create_task(ws, "t1", "T")
    run = _verify(ws)
    assert run.task.state == "working" and run.verdict.recommendations == ["add tests"]
    assert run.notices == ["task t1 has no team: its workers were not sent the message"]


def test_a_failed_task_can_be_retried_and_verified_again(ws, scripted):
    from teamdeck.protocol.effects.task_retry import retry

    scripted.answer = GuardianResult(status="FAIL")
    create_task(ws, "t1", "T")
    first = _verify(ws)
    retry(ws, "t1")
    scripted.answer = GuardianResult(status="PASS")
    second = _verify(ws)
    assert second.task.state == "verified" and second.assignment.id != first.assignment.id
    assert [v.status for v in list_verdicts(ws, "t1")[0]] == ["FAIL", "PASS"]


def test_verify_is_refused_in_states_that_cannot_be_verified(ws, scripted):
    create_task(ws, "t1", "T", state="planned")
    with pytest.raises(
        Refused, match="cannot go from planned to verifying; from planned it can go to: approved, canceled"
    ):
        _verify(ws)
    with pytest.raises(NotFound, match="No guardian 'nope'"):
        create_task(ws, "t2", "T")
        verify(ws, "t2", guardian="nope")
    assert load_task(ws, "t2").state == "working" and not ws.assignments_dir("t2").exists()


def test_a_crash_after_assigning_is_resumed_with_the_same_assignment(ws, scripted):
    """The supervisor died after guardian.assigned: the next verify resumes, not duplicates."""
    create_task(ws, "t1", "T")
    task = load_task(ws, "t1")
    assignment = {
        "id": "ga-crashed",
        "task": "t1",
        "guardian": "scripted",
        "reason": {},
        "timeoutS": 5.0,
        "createdAt": "2026-03-01T12:00:00.000Z",
        "createdBy": "human:tester",
    }
    transact(
        ws,
        "t1",
        lambda t: [
            new_event(ws, "guardian.assigned", {"assignment": assignment}),
            transition_event(ws, task, "verifying"),
        ],
        action="assign",
    )
    run = _verify(ws)
    assert run.resumed and run.assignment.id == "ga-crashed" and run.task.state == "verified"
    assert ws.assignment_file("t1", "ga-crashed").exists()  # rewritten from the event
    assert len(list_assignments(ws, "t1")[0]) == 1
    with pytest.raises(Refused):
        _verify(ws)  # verified: nothing more to verify


def test_a_recorded_verdict_is_applied_not_recomputed_after_a_crash(ws, scripted):
    """Crash between the verdict_recorded append and task.yaml: resume applies that verdict."""
    create_task(ws, "t1", "T")
    scripted.answer = GuardianResult(status="NEEDS_CHANGES")
    first = _verify(ws)
    assert first.task.state == "working"
    transition(ws, "t1", "verifying")
    # a verification whose guardian ran and whose verdict event was appended, then the process died
    assignment = {
        "id": "ga-second",
        "task": "t1",
        "guardian": "scripted",
        "reason": {},
        "timeoutS": 5.0,
        "createdAt": "2026-03-01T12:00:00.000Z",
        "createdBy": "human:tester",
    }
    transact(
        ws,
        "t1",
        lambda t: [
            new_event(ws, "guardian.assigned", {"assignment": assignment}),
            new_event(ws, "guardian.verification_started", {"assignmentId": "ga-second"}),
            transition_event(ws, t, "guard-review"),
        ],
        action="start",
    )
    verdict = {
        "id": "gv-second",
        "assignment": "ga-second",
        "task": "t1",
        "guardian": "scripted",
        "status": "PASS",
        "flags": [],
        "evidence": {},
        "recommendations": [],
        "durationS": 0.1,
        "createdAt": "2026-03-01T12:00:00.000Z",
    }
    append_record(
        ws.events_file("t1"),
        new_event(ws, "guardian.verdict_recorded", {"assignmentId": "ga-second", "verdict": verdict}).model_dump(
            mode="json"
        ),
    )
    runs_before = scripted.runs
    run = _verify(ws)
    assert scripted.runs == runs_before  # not run again
    assert run.verdict.id == "gv-second" and run.task.state == "verified"
    assert json.loads(ws.verdict_file("t1", "gv-second").read_text()) == verdict


def test_a_verification_interrupted_while_running_runs_the_guardian_again(ws, scripted):
    create_task(ws, "t1", "T")
    assignment = {
        "id": "ga-int",
        "task": "t1",
        "guardian": "scripted",
        "reason": {},
        "timeoutS": 5.0,
        "createdAt": "2026-03-01T12:00:00.000Z",
        "createdBy": "human:tester",
    }
    transact(
        ws,
        "t1",
        lambda t: [
            new_event(ws, "guardian.assigned", {"assignment": assignment}),
            transition_event(ws, t, "verifying"),
        ],
        action="assign",
    )
    transact(
        ws,
        "t1",
        lambda t: [
            new_event(ws, "guardian.verification_started", {"assignmentId": "ga-int", "attempt": 1}),
            transition_event(ws, t, "guard-review"),
        ],
        action="start",
    )
    run = _verify(ws)
    assert run.resumed and run.task.state == "verified"
    started = [e for e in read_events(ws, "t1") if e.type == "guardian.verification_started"]
    assert [e.payload["attempt"] for e in started] == [1, 2]


def test_an_open_assignment_is_not_replaced_by_another_guardian(ws, scripted):
    create_task(ws, "t1", "T")
    assignment = {
        "id": "ga-open",
        "task": "t1",
        "guardian": "scripted",
        "reason": {},
        "timeoutS": 5.0,
        "createdAt": "2026-03-01T12:00:00.000Z",
        "createdBy": "human:tester",
    }
    transact(
        ws,
        "t1",
        lambda t: [
            new_event(ws, "guardian.assigned", {"assignment": assignment}),
            transition_event(ws, t, "verifying"),
        ],
        action="assign",
    )
    before = ws.events_file("t1").read_bytes()
    with pytest.raises(
        Refused, match="being verified by guardian scripted \\(ga-open\\); run teamdeck verify without --guardian"
    ):
        verify(ws, "t1", guardian="schema", isolation="thread")
    assert ws.events_file("t1").read_bytes() == before


def test_a_person_moving_the_task_meanwhile_keeps_their_state(ws, scripted, monkeypatch):
    """The task is canceled while its guardian runs: the verdict is recorded and marked
    applied, but the task stays canceled."""
    from teamdeck.protocol.task.lifecycle import cancel

    create_task(ws, "t1", "T")

    class CancelMeanwhile:
        def verify(self, context):
            cancel(ws, "t1", reason="changed our mind")
            return GuardianResult(status="PASS")

    monkeypatch.setitem(registry._EXTRA, "cancels", CancelMeanwhile)
    run = _verify(ws, guardian="cancels")
    assert run.task.state == "canceled" and run.verdict.status == "PASS"
    applied = run.events[-1]
    assert applied.type == "guardian.verdict_applied" and (applied.payload["from"], applied.payload["to"]) == (
        "canceled",
        "canceled",
    )


def test_guardian_settings_are_events_and_used_by_default(ws, scripted):
    create_task(ws, "t1", "T")
    change = configure_guardian(ws, "t1", code="scripted", timeout_s=9, command="make check", cwd="proj")
    assert change.task.guardian.model_dump() == {
        "code": "scripted",
        "timeoutS": 9.0,
        "command": {"run": "make check", "cwd": "proj", "timeoutS": 300.0, "needsChangesExit": None},
        "onReview": False,
        "retries": 0,
    }
    assert read_events(ws, "t1")[-1].type == "guardian.configured"
    assert configure_guardian(ws, "t1", code="scripted").events == []  # unchanged: nothing appended
    run = verify(ws, "t1", isolation="thread")
    assert run.assignment.guardian == "scripted" and run.assignment.timeoutS == 9.0
    with pytest.raises(Refused, match="needs --command"):
        create_task(ws, "t2", "T")
        configure_guardian(ws, "t2", cwd="x")


def test_validate_checks_guardian_records_and_plans(ws, scripted):
    from teamdeck.protocol.checks.validate import validate_workspace

    create_task(ws, "t1", "T")
    run = _verify(ws)
    assert validate_workspace(ws) == []
    ws.verdict_file("t1", "gv-other").write_text(ws.verdict_file("t1", run.verdict.id).read_text())
    (ws.plans_dir / "p1").mkdir(parents=True)
    (ws.plans_dir / "p1" / "plan.yaml").write_text("id: p1\n")
    problems = [str(problem) for problem in validate_workspace(ws)]
    assert (
        f"tasks/t1/guardian/verdicts/gv-other.json $.id: '{run.verdict.id}' does not match the file name 'gv-other.json'"
        in problems
    )
    assert any(problem.startswith("plans/p1/plan.yaml $.title") for problem in problems)
    verdicts, unreadable = list_verdicts(ws, "t1")
    assert verdicts == [run.verdict] and unreadable == [
        f"tasks/t1/guardian/verdicts/gv-other.json: its id '{run.verdict.id}' does not match the file name; ignored"
    ]
