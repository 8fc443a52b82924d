"""What the team-task keys of the tasks panel do to the files: reassign a task of a
team's Claude Code task list, or mark it pending again (protocol/team_tasks.py). Like
tui/actions.py: one protocol call per action, run by the app on a worker, which
refreshes what it wrote; nothing here writes a file itself.

Which of them a task allows right now is protocol/allowed.py's rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.protocol.allowed import can_update_team_task
from teamdeck.view.snapshot import TeamTaskView

if TYPE_CHECKING:
    from teamdeck.tui.app import TeamdeckApp


def allows(task: TeamTaskView, action: str) -> bool:
    """Whether ``action`` (``reassign`` or ``mark_pending``) is allowed for ``task`` now
    (protocol/allowed.py's rule)."""
    return can_update_team_task(task.status, "pending" if action == "mark_pending" else action)


def reassign(app: TeamdeckApp, task: TeamTaskView, member: str) -> None:
    """Give ``task`` to ``member`` (who is sent a task_assignment)."""

    def call() -> str:
        from teamdeck.protocol.team_tasks import update_team_task

        done = update_team_task(app.ws, task.team, task.id, owner=member)
        told = f"; {done.told} was sent a task_assignment" if done.told else ""
        return "; ".join([f"task #{task.id} of {task.team} is now owned by {done.after.owner}{told}", *done.notices])

    app.perform(f"reassign task #{task.id} of {task.team}", call)


def mark_pending(app: TeamdeckApp, task: TeamTaskView) -> None:
    """Set ``task`` back to ``pending`` (its owner kept), for anyone to pick up again."""

    def call() -> str:
        from teamdeck.protocol.team_tasks import update_team_task

        done = update_team_task(app.ws, task.team, task.id, status="pending")
        return f"task #{task.id} of {task.team} is {done.after.status}"

    app.perform(f"mark task #{task.id} of {task.team} pending", call)
