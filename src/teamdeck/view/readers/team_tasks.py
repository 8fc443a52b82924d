"""A team's task list (Claude Code's: ``tasks/<team>/<n>.json``) as the fronts show it,
read through the team's format (formats/format.py).

What was read is kept per file as a :class:`TaskListFiles`, so a change to one task
file re-reads that file alone (view/refresh/build.py maps the watcher's paths here). The view
is derived again at every refresh - it is a handful of rows - because part of it
depends on the clock and on the roster: a task ``in_progress`` whose owner is offline
(or gone from the roster), or idle for longer than the workspace's
``stalledAfterSeconds``, is **stalled**.

A directory under ``tasks/`` is read as a task list only when it is a Claude Code task
list of some team format (formats/registry.py ``task_dir_kind``) *and* its name is a team: teamdeck's own
tasks (``tasks/<id>/task.yaml``) share the directory.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from teamdeck.clock import iso, parse_iso
from teamdeck.errors import InvalidFile
from teamdeck.formats.registry import team_format
from teamdeck.model.team import ClaudeTask
from teamdeck.protocol.team.task_list_checks import dependency_problems
from teamdeck.store.workspace import Workspace
from teamdeck.view.figures.overview import age
from teamdeck.view.snapshot.workspace import MemberView, Problem, TeamTaskListView, TeamTaskView, TeamView

DONE_STATUSES = frozenset({"completed", "deleted"})
"""A blocker in one of these statuses no longer blocks."""


@dataclass(frozen=True)
class TaskListFiles:
    """What was read of one task list.

    Attributes:
        team: the team (the directory's name).
        read: task entry name -> its task, or the problem that stopped it being read, by
            task id (the order of the format's listing).
        misnamed: JSON files whose names are not task ids (reported, never read).
    """

    team: str
    read: Mapping[str, ClaudeTask | Problem]
    misnamed: tuple[str, ...] = ()


def read_task_list_files(ws: Workspace, team: str) -> TaskListFiles:
    """Read every file of ``tasks/<team>/`` (an empty list when it is gone)."""
    listing = team_format(ws, team).task_listing(ws, team)
    read: dict[str, ClaudeTask | Problem] = {}
    for name in listing.names:
        found = _read(ws, team, name)
        if found is not None:
            read[name] = found
    return TaskListFiles(team, read, listing.misnamed)


def reread_task_files(ws: Workspace, files: TaskListFiles, names: set[str]) -> TaskListFiles:
    """``files`` with the task files ``names`` read again (dropped when gone); any other
    name (a file appeared or went, a ``.lock``...) lists the directory again and reads
    only files not read before."""
    listing = team_format(ws, files.team).task_listing(ws, files.team)
    read: dict[str, ClaudeTask | Problem] = {}
    for name in listing.names:  # in the listing's order: by task id
        found = files.read[name] if name in files.read and name not in names else _read(ws, files.team, name)
        if found is not None:
            read[name] = found
    return TaskListFiles(files.team, read, listing.misnamed)


def _read(ws: Workspace, team: str, name: str) -> ClaudeTask | Problem | None:
    files = team_format(ws, team)
    try:
        return files.read_task(ws, team, name)
    except FileNotFoundError:
        return None
    except InvalidFile as err:
        return Problem.of(err, files.task_shown(ws, team, name))


def task_list_view(
    ws: Workspace,
    files: TaskListFiles,
    team: TeamView | None,
    *,
    now: datetime,
    stalled_after: int,
    previous: TeamTaskListView | None = None,
) -> TeamTaskListView:
    """The list as the fronts show it.

    Args:
        ws: the workspace (for paths).
        files: what was read.
        team: the team's roster view (owners' statuses), None when unreadable.
        now: the time to measure idleness at.
        stalled_after: seconds of owner idleness that make an ``in_progress`` task stalled.
        previous: the view made last time: returned itself when nothing changed, so the
            fronts can tell by identity.
    """
    list_format = team_format(ws, files.team)
    by_id = {}
    problems = []
    for name, found in files.read.items():  # by task id (the listing's order)
        if isinstance(found, Problem):
            problems.append(found)
        else:
            by_id[found.id] = (name, found)
    problems += [Problem.of(list_format.misnamed_task(ws, files.team, name)) for name in files.misnamed]
    for dependency in dependency_problems(task for _, task in by_id.values()):
        path = list_format.task_shown(ws, files.team, by_id[dependency.task_id][0])
        problems.append(Problem(path, f"$.{dependency.field}", dependency.why))
    members = {member.name.lower(): member for member in team.members} if team is not None else None
    reports = {task_id: f"completed by {who} at {at}" for task_id, who, at in team.task_reports} if team else {}
    limit = timedelta(seconds=stalled_after)
    tasks = []
    for name, task in by_id.values():
        reported = reports.get(task.id, "") if task.status not in DONE_STATUSES else ""
        waiting = tuple(
            other for other in task.blockedBy if other not in by_id or by_id[other][1].status not in DONE_STATUSES
        )
        tasks.append(
            TeamTaskView(
                team=files.team,
                id=task.id,
                subject=task.subject,
                description=task.description,
                active_form=task.activeForm or "",
                status=task.status,
                owner=task.owner,
                blocked_by=waiting,
                blocks=tuple(task.blocks),
                internal=task.internal,
                stalled="" if reported or (team is not None and team.ended) else _stalled(task, members, now, limit),
                path=list_format.task_shown(ws, files.team, name),
                reported=reported,
            )
        )
    view = TeamTaskListView(files.team, tuple(tasks), tuple(problems))
    if previous is not None and previous == view:
        return previous
    return view


def _stalled(task: ClaudeTask, members: dict[str, MemberView] | None, now: datetime, limit: timedelta) -> str:
    """Why an ``in_progress`` task looks stuck, or ``""``."""
    if task.status != "in_progress" or not task.owner or task.internal or members is None:
        return ""
    name = task.owner.rpartition("@")[0] if "@" in task.owner else task.owner
    member = members.get(name.lower())
    if member is None:
        return f"owner {name} is not in the team (it shut down, or never joined)"
    if member.status == "offline":
        return f"owner {member.name} is offline"
    if member.status != "idle" or not member.since:
        return ""
    try:
        idle_since = parse_iso(member.since)
    except (ValueError, TypeError):
        return ""
    if now - idle_since < limit:
        return ""
    # Idle time counts from the task's assignment: a task just given to an idle member
    # (a reassignment) is not stuck, it is waiting for the member to take it up.
    assigned = _assigned_at(member, task.id)
    since = max(idle_since, assigned) if assigned is not None else idle_since
    if now - since < limit:
        return ""
    return f"owner {member.name} idle for {age(iso(since), now)}"


def _assigned_at(member: MemberView, task_id: str) -> datetime | None:
    """When ``member`` was last sent the ``task_assignment`` of ``task_id`` (the newest
    one in its inbox), or None."""
    for message in reversed(member.inbox):
        if message.kind != "task_assignment":
            continue
        try:
            assignment = json.loads(message.raw)
            if str(assignment.get("taskId")) == task_id:
                return parse_iso(message.timestamp)
        except (ValueError, TypeError, AttributeError):
            continue
    return None
