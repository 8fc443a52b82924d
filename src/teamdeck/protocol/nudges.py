"""A nudge: the team lead reminds a member of work it has not answered (issue 21 item 3).

A nudge is a plain message from the lead in the member's inbox (which wakes it through
the runner), then a ``member.nudged`` event in the task's log. The message is keyed by
the task, the worker, the activity it answers and its number, so a nudge interrupted
between the two is finished, never sent twice, by the next step.
"""

from __future__ import annotations

from teamdeck.clock import iso
from teamdeck.model.event import Event
from teamdeck.model.task import Task, Worker
from teamdeck.protocol.events import new_event
from teamdeck.protocol.messaging.sending import send_message
from teamdeck.protocol.stall_scan import NUDGED
from teamdeck.protocol.taskfile import TaskChange, transact
from teamdeck.store.workspace import Workspace


def nudge(
    ws: Workspace, task: Task, worker: Worker, *, attempt: int, cause: str, since: str | None = None
) -> TaskChange:
    """Remind ``worker`` of ``task`` and record it.

    Args:
        ws: the workspace (its actor is recorded).
        task: the task (it has a team).
        worker: the member's worker on it.
        attempt: the nudge's number since the member's last activity.
        cause: why, recorded with the event (``bob has not reported on t1 for 20 min``).
        since: the activity the nudge answers (ISO), part of the message's key.

    Raises:
        NotFound: the team or member is gone. ReadOnly, Busy, WriteFailed: see send_message.
    """
    assert task.team is not None and worker.member is not None
    text = (
        f"Reminder ({attempt}): task {task.id} ({task.title}) is waiting for your report. "
        f"{cause}. When you finish or are blocked, report with `teamdeck report {task.id} {worker.id} "
        "--status completed|blocked|failed --summary ...`."
    )
    send_message(
        ws,
        task.team,
        worker.member,
        text,
        summary=f"Reminder: {task.id} waits for your report",
        key=f"nudge:{task.id}:{worker.id}:{since or iso(ws.clock())}:{attempt}",
    )

    def decide(_current: Task) -> list[Event]:
        return [
            new_event(
                ws,
                NUDGED,
                {"worker": worker.id, "member": worker.member, "attempt": attempt, "cause": cause},
            )
        ]

    return transact(ws, task.id, decide, action=f"record the nudge of {worker.member} on task {task.id}")
