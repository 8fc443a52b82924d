"""A team's Claude Code task list (``tasks/<team>/<n>.json``): changing a task as Claude
Code's TaskUpdate does (what is wrong with the list as a whole is
protocol/team/task_list_checks.py).

- :func:`update_team_task` is ``teamdeck team task TEAM ID --owner M | --status S``: the
  file is changed under the list's lock (by the team's format: formats/claude_code/tasks.py, unknown
  fields and key order kept); a new owner is then sent the ``task_assignment`` Claude Code sends when
  TaskUpdate sets an owner, so the agent learns of it on its next turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from teamdeck.clock import iso
from teamdeck.errors import Refused, TeamdeckError
from teamdeck.formats.registry import team_format
from teamdeck.model.team import ClaudeTask, TaskAssignment
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.messaging.sending import send_structured
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.paths import check_team, shown
from teamdeck.store.workspace import Workspace


@dataclass(frozen=True)
class TeamTaskUpdate:
    """What :func:`update_team_task` did.

    Attributes:
        team: the team.
        before, after: the task as it was and is.
        told: the new owner, when it was sent a ``task_assignment``.
        notices: what the person should know (the new owner could not be told...).
    """

    team: str
    before: ClaudeTask
    after: ClaudeTask
    told: str | None = None
    notices: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.before.to_json() != self.after.to_json()


def update_team_task(
    ws: Workspace, team: str, task_id: str, *, owner: str | None = None, status: str | None = None
) -> TeamTaskUpdate:
    """Reassign a task of a team's Claude Code task list, or set its status.

    Args:
        ws: the workspace.
        team: the team (its list is ``tasks/<team>/``).
        task_id: the task's id (a number).
        owner: the new owner: a member of the team (any case, ``name@team``).
        status: ``pending``, ``in_progress`` or ``completed``.

    Returns:
        The task before and after, and who was told.

    Raises:
        ReadOnly, Refused (nothing to change, an unknown status), NotFound (team,
        member or task), InvalidFile (the task file is not a task): nothing written.
        Busy, WriteFailed: the list's lock or the disk refused; nothing written.
    """
    check_team(team)
    action = f"change task {shown(task_id)} of team '{team}'"
    if owner is None and status is None:
        raise Refused(f"Could not {action}: say what to change (--owner MEMBER and/or --status STATUS)")
    if status is not None and status not in ClaudeTask.SETTABLE_STATUSES:
        raise Refused(
            f"Could not {action}: unknown status '{shown(status)}' (use {', '.join(ClaudeTask.SETTABLE_STATUSES)}); nothing was written"
        )
    files = team_format(ws, team)
    files.check_task_id(task_id)
    ws.require_writable(action)
    config = read_team(ws, team)
    changes: dict[str, Any] = {}
    if owner is not None:
        changes["owner"] = resolve_member(config, team, owner, role="member")
    if status is not None:
        changes["status"] = status
    before, after = files.update_task(ws, team, task_id, changes)
    update = TeamTaskUpdate(team, before, after)
    if owner is not None and after.owner and (before.owner or "").lower() != after.owner.lower():
        return _tell_new_owner(ws, update, config.lead_name)
    return update


def _tell_new_owner(ws: Workspace, update: TeamTaskUpdate, lead: str) -> TeamTaskUpdate:
    """Send the new owner the ``task_assignment`` Claude Code sends (never raises: the
    task file is already changed)."""
    task = update.after
    assert task.owner is not None
    assignment = TaskAssignment(
        taskId=task.id,
        subject=task.subject,
        description=task.description,
        assignedBy=lead,
        timestamp=iso(ws.clock()),
    )
    try:
        send_structured(ws, update.team, task.owner, assignment, sender=lead)
    except TeamdeckError as err:
        return TeamTaskUpdate(
            update.team,
            update.before,
            update.after,
            notices=[f"task {task.id} is reassigned, but {task.owner} was not sent the task_assignment: {err}"],
        )
    return TeamTaskUpdate(update.team, update.before, update.after, told=task.owner)
