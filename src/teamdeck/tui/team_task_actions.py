"""What the team-task keys of the tasks panel do to the files: reassign a task of a
team's Claude Code task list, or mark it pending again (protocol/team_tasks.py). Like
tui/actions.py: one protocol call per action, run by the app on a worker, with the
paths it changes; nothing here writes a file itself.

Which of them a task allows right now (for the keys, the footer and the palette) is
decided here too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.protocol.team_tasks import update_team_task
from teamdeck.view.snapshot import TeamTaskView

if TYPE_CHECKING:
    from pathlib import Path

    from teamdeck.tui.app import TeamdeckApp

CLOSED = frozenset({"completed", "deleted"})


def allows(task: TeamTaskView, action: str) -> bool:
    """Whether ``action`` (``reassign`` or ``mark_pending``) makes sense for ``task``:
    reassigning a task that is not closed; marking pending one that is not pending yet."""
    if action == "reassign":
        return task.status not in CLOSED
    if action == "mark_pending":
        return task.status not in CLOSED and task.status != "pending"
    return False


def _paths(app: TeamdeckApp, task: TeamTaskView) -> list[Path]:
    ws = app.ws
    return [ws.claude_tasks_dir(task.team) / f"{task.id}.json", ws.team_dir(task.team)]


def reassign(app: TeamdeckApp, task: TeamTaskView, member: str) -> None:
    """Give ``task`` to ``member`` (who is sent a task_assignment)."""

    def call() -> str:
        done = update_team_task(app.ws, task.team, task.id, owner=member)
        told = f"; {done.told} was sent a task_assignment" if done.told else ""
        return "; ".join([f"task #{task.id} of {task.team} is now owned by {done.after.owner}{told}", *done.notices])

    app.perform(f"reassign task #{task.id} of {task.team}", call, _paths(app, task))


def mark_pending(app: TeamdeckApp, task: TeamTaskView) -> None:
    """Set ``task`` back to ``pending`` (its owner kept), for anyone to pick up again."""

    def call() -> str:
        done = update_team_task(app.ws, task.team, task.id, status="pending")
        return f"task #{task.id} of {task.team} is {done.after.status}"

    app.perform(f"mark task #{task.id} of {task.team} pending", call, _paths(app, task))
