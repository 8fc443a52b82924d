"""What the lifecycle keys do to the files: transition, cancel, retry, verify and join
a task (the app joins too, when a worker's final output appears). Like
tui/panels/roster/actions.py: one protocol call per action, as a
:class:`RunAction` message the widget posts (the app's action runner runs it and has
exactly what the call wrote read); nothing here writes a file itself or shows anything
optimistic.

Which actions a task allows right now (for the keys, the footer and the
palette) is asked of the protocol's predicates (protocol/task/allowed.py), so every front agrees.
The protocol modules that write are imported by each call, on the worker (as in
tui/panels/roster/actions.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.live.actions import Action
from teamdeck.protocol.task.allowed import task_actions_allowed
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.workspace import TaskView

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace


def task_allows(task: TaskView, action: str) -> bool:
    """Whether lifecycle ``action`` (protocol/task/allowed.py's TASK_ACTIONS) is allowed for
    the task now: the protocol's predicates, asked with what the snapshot holds."""
    allowed = task_actions_allowed(
        task.state,
        [(gate.gate_id or "", gate.subkind) for gate in task.open_gates],
        unreadable=task.problem is not None and task.state == "?",
    )
    return action in allowed


def move(task: TaskView, target: str, reason: str | None) -> RunAction:
    """Move ``task`` to ``target`` (the lifecycle table decides; a refusal is a notice)."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.task.lifecycle import transition

        change = transition(ws, task.id, target, reason=reason or "moved by a person in teamdeck")
        return f"task {task.id} is {change.task.state}"

    return RunAction(Action(f"move task {task.id} to {target}", call))


def cancel_task(task: TaskView, reason: str | None) -> RunAction:
    """Cancel ``task``; its open gates are closed."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.task.lifecycle import cancel

        change = cancel(ws, task.id, reason=reason or "")
        return f"task {task.id} is {change.task.state}"

    return RunAction(Action(f"cancel task {task.id}", call))


def retry_task(task: TaskView, note: str | None) -> RunAction:
    """Retry a blocked task: its verification-failed gates are approved, it works again."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.effects.task_retry import retry

        change = retry(ws, task.id, note=note or "retry")
        return f"task {task.id} is {change.task.state}"

    return RunAction(Action(f"retry task {task.id}", call))


def verify_task(task: TaskView, reason: str | None) -> RunAction:
    """Run the task's guardian (in a child process, on the action thread) and apply its verdict."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.guardians.verification import verify

        done = verify(ws, task.id, reason=reason or "asked in teamdeck")
        gate = f"; gate {done.gate_id} waits" if done.gate_id else ""
        return f"task {task.id}: {done.verdict.guardian} said {done.verdict.status}; it is {done.task.state}{gate}"

    return RunAction(Action(f"verify task {task.id}", call))


def join(task_id: str) -> RunAction:
    """Run the join of ``task_id`` again."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.task.join import join_task

        result = join_task(ws, task_id)
        opened = f"; opened {', '.join(result.gates_opened)}" if result.gates_opened else ""
        return f"joined task {task_id}: {result.summary.totals.total} worker(s){opened}"

    return RunAction(Action(f"join task {task_id}", call))
