"""What the lifecycle keys do to the files: transition, cancel, retry, verify and join
a task (the app joins too, when a worker's final output appears). Like
tui/panels/roster/actions.py: live/calls.py's action for the task, as a
:class:`RunAction` message the widget posts (the app's action runner runs it and has
exactly what the call wrote read); nothing here writes a file itself or shows anything
optimistic.

Which actions a task allows right now (for the keys, the footer and the
palette) is asked of the protocol's predicates (protocol/task/allowed.py), so every front agrees."""

from __future__ import annotations

from teamdeck.live import calls
from teamdeck.protocol.task.allowed import why_not_task_action
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.workspace import TaskView


def task_allows(task: TaskView, action: str) -> bool:
    """Whether lifecycle ``action`` (protocol/task/allowed.py's TASK_ACTIONS) is allowed for
    the task now: the protocol's predicates, asked with what the snapshot holds."""
    return why_not(task, action) is None


def why_not(task: TaskView, action: str) -> str | None:
    """Why lifecycle ``action`` is not allowed for the task now (None: it is), as the
    protocol's predicates word it."""
    return why_not_task_action(
        action,
        task.state,
        [(gate.gate_id or "", gate.subkind) for gate in task.open_gates],
        unreadable=task.problem is not None and task.state == "?",
    )


def move(task: TaskView, target: str, reason: str | None) -> RunAction:
    """Move ``task`` to ``target`` (the lifecycle table decides; a refusal is a notice)."""
    return RunAction(calls.move_task(task.id, target, reason))


def cancel_task(task: TaskView, reason: str | None) -> RunAction:
    """Cancel ``task``; its open gates are closed."""
    return RunAction(calls.cancel_task(task.id, reason))


def retry_task(task: TaskView, note: str | None) -> RunAction:
    """Retry a blocked task: its verification-failed gates are approved, it works again."""
    return RunAction(calls.retry_task(task.id, note))


def verify_task(task: TaskView, reason: str | None) -> RunAction:
    """Run the task's guardian (in a child process, on the action thread) and apply its verdict."""
    return RunAction(calls.verify_task(task.id, reason))


def join(task_id: str) -> RunAction:
    """Run the join of ``task_id`` again."""
    return RunAction(calls.join(task_id))
