"""What deciding each kind of task gate does besides recording itself, in one visible
table (:data:`GATE_RULES`): its **effect** (extra events in the decision's own
transaction) and its **follow-up** (what the decision sets going in other documents,
once it is on disk). protocol/effects/gate_decisions.py looks the rule up by the gate's kind; the kinds'
modules are imported here by name, so what a decision does never depends on which
other modules happen to be imported.

A new kind of task gate: write its effect (and follow-up) in its own module and add a
row here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from teamdeck.model.event import Event
from teamdeck.model.task import Gate, GateAnswer, Task
from teamdeck.protocol.effects.lifecycle_gates import approve_or_drop_plan, move_the_plan, retry_or_give_up
from teamdeck.protocol.effects.stall_gates import nudge_or_delegate, reassign_or_give_up
from teamdeck.protocol.forge.round_review import achieved_or_new_round, report_the_outcome
from teamdeck.protocol.task.lifecycle import can_transition, transition_event
from teamdeck.store.workspace import Workspace

GateEffect = Callable[[Workspace, Task, Gate, GateAnswer], list[Event]]
"""``effect(ws, task, gate, decision) -> extra events``: ``task`` and ``gate`` are as
they are *after* the decision event; the events are appended right after it, in the
same transaction (build them with ``new_event`` / ``transition_event``)."""

GateFollowUp = Callable[[Workspace, Task, Gate, GateAnswer], list[str]]
"""``follow_up(ws, task, gate, decision) -> notices``: ``task`` and ``gate`` as they are
after the decision's transaction; returns lines worth telling the person."""


def resume_when_nothing_waits(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[Event]:
    """Back to ``working`` once no gate of the task is still blocked (approve or reject:
    either way the worker has its answer in human-notes.md)."""
    if task.open_gates or task.state != "input-required" or not can_transition(task.state, "working"):
        return []
    return [transition_event(ws, task, "working", reason=f"gate {gate.id} {gate.state}; no gate is waiting")]


@dataclass(frozen=True)
class GateRule:
    """What deciding a gate of one kind does (see the module)."""

    effect: GateEffect = resume_when_nothing_waits
    follow_up: GateFollowUp | None = None


GATE_RULES: dict[str, GateRule] = {
    "worker-blocked": GateRule(resume_when_nothing_waits),
    "verification-failed": GateRule(retry_or_give_up),
    "plan-approval": GateRule(approve_or_drop_plan, move_the_plan),
    "round-review": GateRule(achieved_or_new_round, report_the_outcome),
    "member-stalled": GateRule(reassign_or_give_up, nudge_or_delegate),
}
"""Gate kind (model/task.py ``GateKind``) → its rule."""


def rule_of(kind: str) -> GateRule:
    """The rule of gates of ``kind`` (a kind without one behaves like ``worker-blocked``)."""
    return GATE_RULES.get(kind, GATE_RULES["worker-blocked"])
