"""What deciding the lifecycle's gates does.

Two gate kinds belong to the lifecycle (their rows in protocol/effects/gate_kinds.py's
``GATE_RULES``):

- ``verification-failed`` (a guardian said FAIL, seed 003): approve = **retry**, the
  task goes back to ``working`` and can be verified again; reject = **give up**, the
  task ``failed`` (its other open gates are closed).
- ``plan-approval`` (a coordinator plan waits for a person, seed 002), on the plan's
  coordinator task: approve → the task is ``approved`` and the plan becomes READY;
  reject → the task is ``canceled`` and so is the plan. Its follow-up moves the plan
  at once (``advance(start=False)``: READY with its tasks approved, or CANCELED), so a
  decision in the gate queue, from any front, is the plan's decision.

Retrying a blocked task (``teamdeck task retry``, protocol/effects/task_retry.py) approves
every open ``verification-failed`` gate of it.
"""

from __future__ import annotations

from teamdeck.model.event import Event
from teamdeck.model.task import Gate, GateAnswer, Task, TaskState
from teamdeck.protocol.plans.machine import advance
from teamdeck.protocol.task.lifecycle import can_transition, close_gates_events, transition_event
from teamdeck.store.workspace import Workspace


def retry_or_give_up(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[Event]:
    """Approve: back to ``working`` once no gate waits; reject: ``failed``."""
    if decision == "reject":
        return give_up_events(ws, task, gate, f"gave up at gate {gate.id}")
    if task.open_gates or not can_transition(task.state, "working"):
        return []
    return [transition_event(ws, task, "working", reason=f"retry after gate {gate.id}")]


def give_up_events(ws: Workspace, task: Task, gate: Gate, note: str) -> list[Event]:
    """A gate rejected as giving up: the task's other open gates close and it ``failed``
    (nothing when it cannot fail any more)."""
    if not can_transition(task.state, "failed"):
        return []
    return [
        *close_gates_events(ws, task, note),
        transition_event(ws, task, "failed", reason=f"{note}: {gate.note or ''}".rstrip(": ")),
    ]


def approve_or_drop_plan(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[Event]:
    """Approve: the coordinator task is ``approved``; reject: ``canceled``."""
    target: TaskState = "approved" if decision == "approve" else "canceled"
    if not can_transition(task.state, target):
        return []
    return [transition_event(ws, task, target, reason=f"plan {gate.state} at gate {gate.id}")]


def move_the_plan(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[str]:
    """The decided plan moves now: READY (its tasks approved) or CANCELED; it does not
    start (``teamdeck plan run`` does, with the members to delegate to)."""
    if task.plan is None:
        return []
    advanced = advance(ws, task.plan, start=False)
    return [f"plan {task.plan}: {move}" for move in advanced.moves]
