"""``teamdeck task retry``: a blocked task goes back to ``working``, its FAIL gates
approved (recorded like any decision)."""

from __future__ import annotations

from teamdeck.errors import Refused
from teamdeck.model.event import Event
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.allowed import why_not_retry
from teamdeck.protocol.task.lifecycle import transition
from teamdeck.protocol.task.taskfile import TaskChange, load_task
from teamdeck.store.workspace import Workspace

RETRY_NOTE = "retry"


def retry(ws: Workspace, task_id: str, *, note: str = RETRY_NOTE) -> TaskChange:
    """Retry a blocked task: it goes back to ``working``.

    Every open ``verification-failed`` gate is approved (recorded like any decision);
    a task blocked by hand with no gate simply moves. A task whose workers' questions
    still wait (``worker-blocked`` gates) is refused: answer them with
    ``teamdeck gate approve|reject``.

    Returns:
        The task after, the events of every decision, and ``owed``: the effects of
        those decisions that failed (kept for their completer, F24).

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
    owed: list[str] = []
    for gate in failed:
        change = decide_gate(ws, task_id, gate.id, "approve", note)
        events.extend(change.events)
        owed.extend(change.owed)
    return TaskChange(change.task, events, change.notices, tuple(owed))
