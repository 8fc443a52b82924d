"""What the team-task keys of the tasks panel do to the files: reassign a task of a
team's Claude Code task list, or mark it pending again (protocol/team/task_list.py). Like
tui/panels/roster/actions.py: live/calls.py's action, as a :class:`RunAction` message the
widget posts (the app's action runner runs it and has what it wrote read); nothing here
writes a file itself.

Which of them a task allows right now is protocol/team/allowed.py's rule."""

from __future__ import annotations

from teamdeck.live import calls
from teamdeck.protocol.team.allowed import can_update_team_task
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.workspace import TeamTaskView


def allows(task: TeamTaskView, action: str) -> bool:
    """Whether ``action`` (``reassign`` or ``mark_pending``) is allowed for ``task`` now
    (protocol/team/allowed.py's rule)."""
    return can_update_team_task(task.status, "pending" if action == "mark_pending" else action)


def reassign(task: TeamTaskView, member: str) -> RunAction:
    """Give ``task`` to ``member`` (who is sent a task_assignment)."""
    return RunAction(calls.reassign_team_task(task.team, task.id, member))


def mark_pending(task: TeamTaskView) -> RunAction:
    """Set ``task`` back to ``pending`` (its owner kept), for anyone to pick up again."""
    return RunAction(calls.mark_team_task_pending(task.team, task.id))
