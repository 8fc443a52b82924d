"""What deciding the lifecycle's gates does, and retrying a blocked task.

Two gate kinds belong to the lifecycle (registered in protocol/gates.py's
``GATE_EFFECTS``):

- ``verification-failed`` (a guardian said FAIL, seed 003): approve = **retry**, the
  task goes back to ``working`` and can be verified again; reject = **give up**, the
  task ``failed`` (its other open gates are closed).
- ``plan-approval`` (a coordinator plan waits for a person, seed 002), on the plan's
  coordinator task: approve → the task is ``approved`` and the plan becomes READY;
  reject → the task is ``canceled`` and so is the plan. Its follow-up moves the plan
  at once (``advance(start=False)``: READY with its tasks approved, or CANCELED), so a
  decision in the gate queue, from any front, is the plan's decision.

:func:`retry` is ``teamdeck task retry``: the same as approving every open
``verification-failed`` gate of a blocked task.
"""

from __future__ import annotations

from teamdeck.errors import Refused
from teamdeck.model.event import Event
from teamdeck.model.task import Gate, Task, TaskState
from teamdeck.protocol.allowed import why_not_retry
from teamdeck.protocol.gates import GateAnswer, decide_gate, gate_effect, gate_follow_up
from teamdeck.protocol.lifecycle import can_transition, close_gates_events, transition, transition_event
from teamdeck.protocol.plans.machine import advance
from teamdeck.protocol.taskfile import TaskChange, load_task
from teamdeck.store.workspace import Workspace

RETRY_NOTE = "retry"


@gate_effect("verification-failed")
def retry_or_give_up(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[Event]:
    """Approve: back to ``working`` once no gate waits; reject: ``failed``."""
    if decision == "reject":
        if not can_transition(task.state, "failed"):
            return []
        note = f"gave up at gate {gate.id}"
        return [
            *close_gates_events(ws, task, note),
            transition_event(ws, task, "failed", reason=f"{note}: {gate.note or ''}".rstrip(": ")),
        ]
    if task.open_gates or not can_transition(task.state, "working"):
        return []
    return [transition_event(ws, task, "working", reason=f"retry after gate {gate.id}")]


@gate_effect("plan-approval")
def approve_or_drop_plan(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[Event]:
    """Approve: the coordinator task is ``approved``; reject: ``canceled``."""
    target: TaskState = "approved" if decision == "approve" else "canceled"
    if not can_transition(task.state, target):
        return []
    return [transition_event(ws, task, target, reason=f"plan {gate.state} at gate {gate.id}")]


@gate_follow_up("plan-approval")
def move_the_plan(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[str]:
    """The decided plan moves now: READY (its tasks approved) or CANCELED; it does not
    start (``teamdeck plan run`` does, with the members to delegate to)."""
    if task.plan is None:
        return []
    advanced = advance(ws, task.plan, start=False)
    return [f"plan {task.plan}: {move}" for move in advanced.moves]


def retry(ws: Workspace, task_id: str, *, note: str = RETRY_NOTE) -> TaskChange:
    """Retry a blocked task: it goes back to ``working``.

    Every open ``verification-failed`` gate is approved (recorded like any decision);
    a task blocked by hand with no gate simply moves. A task whose workers' questions
    still wait (``worker-blocked`` gates) is refused: answer them with
    ``teamdeck gate approve|reject``.

    Raises:
        Refused: the task is not blocked (naming what it can do), or a worker's
            question waits; nothing was written.
    """
    task = load_task(ws, task_id)
    why = why_not_retry(task.state, [(gate.id, gate.kind) for gate in task.open_gates])
    if why is not None:
        raise Refused(f"Could not retry task {task_id}: {why}")
    failed = [gate for gate in task.open_gates if gate.kind == "verification-failed"]
    if not failed:
        return transition(ws, task_id, "working", reason=note)
    events: list[Event] = []
    for gate in failed:
        change = decide_gate(ws, task_id, gate.id, "approve", note)
        events.extend(change.events)
    return TaskChange(change.task, events, change.notices)
