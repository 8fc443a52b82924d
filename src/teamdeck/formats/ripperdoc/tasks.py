"""A Ripperdoc team's task list: ``tasks/<taskListId>/<id>.json``, one indented JSON
object per task, beside the ``.lock`` its writers flock and the ``.highwatermark`` id
counter (``ripperdoc/utils/collaboration/tasks.py``).

A task's fields are the ones teamdeck's :class:`~teamdeck.model.team.ClaudeTask` names
(``subject``, ``activeForm``, ``status``, ``owner``, ``blocks``, ``blockedBy``,
``metadata``), plus ``version`` (+1 on every change) and ``createdAt`` / ``updatedAt``
in epoch seconds. A change is made as Ripperdoc's ``update_task`` makes it: under the
list's flock, the raw object re-read, the fields changed, ``version`` and ``updatedAt``
bumped, the file replaced whole.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from teamdeck.errors import InvalidFile, NotFound
from teamdeck.formats.ripperdoc.files import TEAM_LOCK, read_json, team_locked, write_json
from teamdeck.formats.ripperdoc.roster import task_list_id
from teamdeck.formats.task_lists import TaskList, TaskListing
from teamdeck.model.team import ClaudeTask
from teamdeck.store.atomic import is_temp_name
from teamdeck.store.loaders import validate_raw
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace

TASK_FILE_RE = re.compile(r"^[A-Za-z0-9._-]{1,64}\.json$")
"""A task file: its id, as Ripperdoc sanitizes it, plus ``.json``."""

NOT_TASKS = frozenset({TEAM_LOCK, ".highwatermark"})


def _key(name: str) -> tuple[int, int, str]:
    """Numeric ids in order, then the rest by name."""
    stem = name[: -len(".json")]
    return (0, int(stem), "") if stem.isdigit() else (1, 0, stem)


def list_dir(ws: Workspace, team: str) -> Path:
    """``tasks/<taskListId>/``."""
    return ws.tasks_dir / task_list_id(ws, team)


def listing(ws: Workspace, team: str) -> TaskListing:
    """The task files of the team's list (none when it does not exist)."""
    try:
        entries = os.listdir(list_dir(ws, team))
    except (FileNotFoundError, NotADirectoryError):
        return TaskListing((), ())
    names, misnamed = [], []
    for name in entries:
        if name in NOT_TASKS or is_temp_name(name) or name.startswith("."):
            continue
        if TASK_FILE_RE.match(name):
            names.append(name)
        elif name.endswith(".json"):
            misnamed.append(name)
    return TaskListing(tuple(sorted(names, key=_key)), tuple(sorted(misnamed)))


def shown_task(ws: Workspace, team: str, name: str) -> str:
    """``tasks/<list>/<name>`` as messages name it."""
    return f"{ws.rel(list_dir(ws, team))}/{shown(name)}"


def read_task(ws: Workspace, team: str, name: str) -> ClaudeTask:
    """One task file, checked (its ``id`` must be its file name).

    Raises:
        FileNotFoundError: it is gone. InvalidFile: naming it and the problem.
    """
    where = shown_task(ws, team, name)
    raw = read_json(list_dir(ws, team) / name, dict, where)
    task: ClaudeTask = validate_raw(ClaudeTask, raw, where)
    if task.id != name[: -len(".json")]:
        raise InvalidFile(where, "$.id", f"'{shown(task.id)}' is not the file's id ({name[: -len('.json')]})")
    return task


def misnamed(ws: Workspace, team: str, name: str) -> InvalidFile:
    """The problem of a JSON file in the list whose name is not a task id."""
    return InvalidFile(shown_task(ws, team, name), "", "not a task file: a task file is named by its id (1.json)")


def read_all(ws: Workspace, team: str) -> TaskList:
    """Every task of the list; a bad file is reported, the others still read."""
    result = TaskList(team)
    found = listing(ws, team)
    for name in found.names:
        try:
            result.tasks.append(read_task(ws, team, name))
        except FileNotFoundError:
            continue
        except InvalidFile as err:
            result.problems.append(str(err))
    result.problems += [str(misnamed(ws, team, name)) for name in found.misnamed]
    return result


def check_task_id(task_id: str) -> None:
    """Refuse an id no Ripperdoc task file can have.

    Raises:
        NotFound: naming the form ids take.
    """
    if not TASK_FILE_RE.match(f"{task_id}.json"):
        raise NotFound(f"'{shown(task_id)}' is not a Ripperdoc task id: letters, digits and ._- (1, 2, 3...)")


def update_task(ws: Workspace, team: str, task_id: str, changes: Mapping[str, Any]) -> tuple[ClaudeTask, ClaudeTask]:
    """Change fields of one task as Ripperdoc's ``update_task`` does (see the module).

    Raises:
        NotFound: no such task. InvalidFile: it is not a valid task (left as it is).
        Busy, WriteFailed: the lock or the disk refused; nothing changed.
    """
    check_task_id(task_id)
    name = f"{task_id}.json"
    directory = list_dir(ws, team)
    if not (directory / name).is_file():
        raise NotFound(f"no task {task_id} in the task list of team '{team}' ({shown_task(ws, team, name)})")
    with team_locked(directory):
        where = shown_task(ws, team, name)
        try:
            raw = read_json(directory / name, dict, where)
        except FileNotFoundError:
            raise NotFound(f"task {task_id} of team '{team}' was removed meanwhile; nothing was written") from None
        before: ClaudeTask = validate_raw(ClaudeTask, raw, where)
        edited = {**raw, **changes}
        if edited != raw:
            version = raw.get("version")
            edited["version"] = version + 1 if isinstance(version, int) and not isinstance(version, bool) else 2
            edited["updatedAt"] = ws.clock().timestamp()
        after = ClaudeTask.model_validate(edited)
        if edited != raw:
            write_json(directory / name, edited, crash_prefix="ripperdoc-task")
    return before, after
