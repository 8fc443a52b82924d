"""The task lifecycle: the one table, the transition function, cancel, retry and the
lifecycle's gate kinds."""

from __future__ import annotations

import pytest

from teamdeck.errors import Refused
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.effects.task_retry import retry
from teamdeck.protocol.task import lifecycle
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.lifecycle import (
    SEED_NAMES,
    STATES,
    TERMINAL,
    TRANSITIONS,
    can_transition,
    cancel,
    legal_next,
    normalise_state,
    transition,
)
from teamdeck.protocol.task.taskfile import load_task, read_events, transact

SEED_003_ROWS = [
    ("RUNNING", "VERIFYING"),
    ("VERIFYING", "GUARD_REVIEW"),
    ("GUARD_REVIEW", "VERIFIED"),
    ("GUARD_REVIEW", "BLOCKED"),
    ("GUARD_REVIEW", "RUNNING"),
    ("VERIFIED", "DONE"),
    ("BLOCKED", "RUNNING"),
    ("PLANNED", "APPROVED"),
    ("APPROVED", "RUNNING"),
    ("RUNNING", "BLOCKED"),
    ("VERIFYING", "BLOCKED"),
]
"""Seed 003's transition table and its state diagram, in the seed's names."""


def _by_seed_name(name: str) -> str:
    return next(state for state, seed in SEED_NAMES.items() if seed == name)


@pytest.mark.parametrize(("source", "target"), SEED_003_ROWS)
def test_every_seed_003_transition_is_in_the_table(source, target):
    assert can_transition(_by_seed_name(source), _by_seed_name(target))


def test_seed_names_are_accepted_where_people_type_states():
    assert normalise_state("RUNNING") == "working"
    assert normalise_state("blocked") == "input-required"
    assert normalise_state("Guard_Review") == "guard-review"
    with pytest.raises(Refused, match="Unknown task state 'soon'; states are: planned, approved, working"):
        normalise_state("soon")


def test_final_states_have_no_way_out_and_everything_else_can_be_canceled():
    assert TERMINAL == {"done", "failed", "canceled"}
    for state in STATES:
        assert set(TRANSITIONS[state]) <= set(STATES)
        if state not in TERMINAL:
            assert can_transition(state, "canceled"), state
    assert legal_next("done") == []


def test_illegal_transition_is_refused_naming_both_states_and_changes_nothing(ws):
    create_task(ws, "t1", "First")
    before = (ws.task_file("t1").read_bytes(), ws.events_file("t1").read_bytes())
    with pytest.raises(
        Refused,
        match=r"cannot go from working to done; from working it can go to: input-required, verifying, failed, canceled",
    ):
        transition(ws, "t1", "done")
    with pytest.raises(Refused, match="already working"):
        transition(ws, "t1", "running")
    assert (ws.task_file("t1").read_bytes(), ws.events_file("t1").read_bytes()) == before


def test_transition_appends_state_changed_with_from_to_reason_and_actor(ws):
    create_task(ws, "t1", "First")
    change = transition(ws, "t1", "blocked", reason="waiting for the API key")
    event = read_events(ws, "t1")[-1]
    assert event.type == "task.state_changed"
    assert event.payload == {"from": "working", "to": "input-required", "reason": "waiting for the API key"}
    assert event.actor == "human:tester"
    assert change.task.state == "input-required" and change.task.stateSince == event.ts
    assert load_task(ws, "t1").lastEventId == event.id


def test_a_task_cannot_start_while_a_dependency_is_not_done(ws):
    create_task(ws, "base", "Base", state="approved")
    create_task(ws, "top", "Top", state="approved", extra={"dependsOn": ["base", "ghost"]})
    with pytest.raises(
        Refused, match=r"top cannot start: it depends on tasks that are not done: base \(approved\), ghost \(missing\)"
    ):
        transition(ws, "top", "working")
    create_task(ws, "ghost", "Ghost", state="approved")
    for task_id in ("base", "ghost"):
        for state in ("working", "verifying", "guard-review", "verified", "done"):
            transition(ws, task_id, state)
    assert transition(ws, "top", "working").task.state == "working"


def _block_with_gate(ws, task_id: str, gate_id: str, kind: str) -> None:
    def decide(task):
        return [
            new_event(
                ws,
                "gate.blocked",
                {"gateId": gate_id, "kind": kind, "reason": "r", "agentInstance": None, "questions": ["q?"]},
            ),
            *([lifecycle.transition_event(ws, task, "input-required")] if task.state != "input-required" else []),
        ]

    transact(ws, task_id, decide, action="block")


def test_cancel_closes_open_gates_and_is_final(ws):
    create_task(ws, "t1", "First")
    _block_with_gate(ws, "t1", "g1", "worker-blocked")
    change = cancel(ws, "t1", reason="not needed")
    assert change.task.state == "canceled"
    assert change.task.gate("g1").state == "rejected" and change.task.gate("g1").note == "task canceled: not needed"
    assert [event.type for event in change.events] == ["gate.rejected", "task.state_changed"]
    with pytest.raises(Refused, match="already canceled"):
        cancel(ws, "t1")
    with pytest.raises(
        Refused, match="cannot go from canceled to working; from canceled it can go to: none: it is final"
    ):
        transition(ws, "t1", "working")


def test_approving_a_verification_failed_gate_retries_and_rejecting_gives_up(ws):
    create_task(ws, "t1", "Retry me")
    _block_with_gate(ws, "t1", "vf-1", "verification-failed")
    assert decide_gate(ws, "t1", "vf-1", "approve", "try again").task.state == "working"
    create_task(ws, "t2", "Give up")
    _block_with_gate(ws, "t2", "vf-2", "verification-failed")
    _block_with_gate(ws, "t2", "g-other", "worker-blocked")
    change = decide_gate(ws, "t2", "vf-2", "reject", "cannot be fixed")
    assert change.task.state == "failed"
    assert change.task.gate("g-other").state == "rejected"  # no dead gate left in the queue


def test_retry_approves_verification_failed_gates(ws):
    create_task(ws, "t1", "Retry me")
    _block_with_gate(ws, "t1", "vf-1", "verification-failed")
    change = retry(ws, "t1")
    assert change.task.state == "working"
    assert change.task.gate("vf-1").state == "approved" and change.task.gate("vf-1").note == "retry"
    assert [event.type for event in change.events] == ["gate.approved", "task.state_changed"]


def test_retry_is_refused_when_not_blocked_or_a_worker_question_waits(ws):
    create_task(ws, "t1", "Working")
    with pytest.raises(Refused, match="only a blocked .* it is working, from which it can go to: input-required"):
        retry(ws, "t1")
    _block_with_gate(ws, "t1", "g1", "worker-blocked")
    before = ws.task_file("t1").read_bytes()
    with pytest.raises(Refused, match="gates g1 wait for a person's answer"):
        retry(ws, "t1")
    assert ws.task_file("t1").read_bytes() == before


def test_retry_of_a_task_blocked_by_hand_just_moves_it(ws):
    create_task(ws, "t1", "Working")
    transition(ws, "t1", "blocked")
    assert retry(ws, "t1").task.state == "working"


def test_plan_approval_gate_approves_or_cancels_the_coordinator_task(ws):
    for task_id in ("p1", "p2"):
        create_task(ws, task_id, "Plan", state="planned")
        transact(
            ws,
            task_id,
            lambda task: [
                new_event(ws, "gate.blocked", {"gateId": "plan", "kind": "plan-approval", "reason": "approve?"})
            ],
            action="ask",
        )
    assert decide_gate(ws, "p1", "plan", "approve").task.state == "approved"
    assert decide_gate(ws, "p2", "plan", "reject", "no").task.state == "canceled"
