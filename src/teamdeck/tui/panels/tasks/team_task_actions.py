"""What the team-task keys of the tasks panel do to the files: reassign a task of a
team's Claude Code task list, or mark it pending again (protocol/team/task_list.py). Like
tui/panels/roster/actions.py: one protocol call per action, as a :class:`RunAction` message the widget
posts (the app's action runner runs it and has what it wrote read); nothing here writes
a file itself.

Which of them a task allows right now is protocol/team/allowed.py's rule."""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.live.actions import Action
from teamdeck.protocol.team.allowed import can_update_team_task
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.workspace import TeamTaskView

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace


def allows(task: TeamTaskView, action: str) -> bool:
    """Whether ``action`` (``reassign`` or ``mark_pending``) is allowed for ``task`` now
    (protocol/team/allowed.py's rule)."""
    return can_update_team_task(task.status, "pending" if action == "mark_pending" else action)


def reassign(task: TeamTaskView, member: str) -> RunAction:
    """Give ``task`` to ``member`` (who is sent a task_assignment)."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.task_list import update_team_task

        done = update_team_task(ws, task.team, task.id, owner=member)
        told = f"; {done.told} was sent a task_assignment" if done.told else ""
        return "; ".join([f"task #{task.id} of {task.team} is now owned by {done.after.owner}{told}", *done.notices])

    return RunAction(Action(f"reassign task #{task.id} of {task.team}", call))


def mark_pending(task: TeamTaskView) -> RunAction:
    """Set ``task`` back to ``pending`` (its owner kept), for anyone to pick up again."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.task_list import update_team_task

        done = update_team_task(ws, task.team, task.id, status="pending")
        return f"task #{task.id} of {task.team} is {done.after.status}"

    return RunAction(Action(f"mark task #{task.id} of {task.team} pending", call))
