"""Claude Code's own task list on disk: ``tasks/<team>/<n>.json``, read one file at a time
and changed the way Claude Code's TaskUpdate changes it.

A list directory holds one JSON object per task, named by its numeric id, plus files
that are not tasks: ``.lock`` (the empty file Claude Code locks), ``.highwatermark``
(its id counter) and an optional consolidated ``tasks.json``. The list is guarded
through ``.lock``: Claude Code (a Node program) locks files with proper-lockfile, whose
lock on ``.lock`` is the *directory* ``.lock.lock`` made with mkdir, stale after 10 s -
the protocol of its inboxes (store/dirlock.py) - which is why it keeps an empty
``.lock`` file at all (proper-lockfile locks only files that exist). Published analyses
of these files guess ``flock`` on ``.lock`` instead, so our writer takes both, the mkdir
lock first: whichever a writer uses, it and we exclude each other, and ``.lock`` stays
empty.

A change re-reads the file under the lock, edits the raw JSON object (key order and
every field we do not know kept), stamps ``updatedAt`` only when the file has one (in
the same form: epoch milliseconds or ISO text), and replaces the file atomically in the
formatting it had (one compact line as ``JSON.stringify(task)``, or indented by two as
``JSON.stringify(task, null, 2)``), so a round trip changes nothing but the changed
fields.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from teamdeck.clock import iso
from teamdeck.errors import Busy, InvalidFile, NotFound, WriteFailed
from teamdeck.formats.claude_code.json_files import encode_pretty, read_json_with_bytes
from teamdeck.formats.claude_code.teamfiles import TASK_FILE_RE
from teamdeck.formats.task_lists import TaskList, TaskListing
from teamdeck.model.team import ClaudeTask
from teamdeck.store.atomic import atomic_replace, is_temp_name
from teamdeck.store.dirlock import LOCK_STALE_S, dir_locked
from teamdeck.store.loaders import validate_raw
from teamdeck.store.locks import LOCK_TIMEOUT_S, release_flock, take_flock
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace

TASK_FILE_MAX_BYTES = 1024 * 1024
"""Cap on one task file: a task is a subject and a description, not a data dump; a
bigger file is reported (and never rewritten) instead of read."""

NOT_TASKS = frozenset({".lock", ".highwatermark", "tasks.json"})
"""Files of a list directory that are not tasks (and not problems)."""

LIST_LOCK = ".lock"
"""The file Claude Code locks (its lock is the directory ``.lock.lock``)."""


def task_file_name(task_id: str) -> str:
    """``<id>.json``.

    Raises:
        NotFound: ``task_id`` is not a task id (a decimal number).
    """
    name = f"{task_id}.json"
    if not TASK_FILE_RE.match(name):
        raise NotFound(f"'{shown(task_id)}' is not a Claude Code task id: task ids are numbers (1, 2, 3...)")
    return name


def task_id_of(name: str) -> int:
    """The numeric id of a task file name (for sorting)."""
    return int(name[: -len(".json")])


def list_task_files(ws: Workspace, team: str) -> TaskListing:
    """The task files of ``tasks/<team>/`` (none when it does not exist)."""
    directory = ws.claude_tasks_dir(team)
    try:
        entries = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return TaskListing((), ())
    names, misnamed = [], []
    for name in entries:
        if name in NOT_TASKS or is_temp_name(name):
            continue
        if TASK_FILE_RE.match(name):
            names.append(name)
        elif name.endswith(".json"):
            misnamed.append(name)
    return TaskListing(tuple(sorted(names, key=task_id_of)), tuple(sorted(misnamed)))


def shown_task_path(ws: Workspace, team: str, name: str) -> str:
    """``tasks/<team>/<name>`` as messages name it (the name escaped)."""
    return f"{ws.rel(ws.claude_tasks_dir(team))}/{shown(name)}"


def read_task_file(ws: Workspace, team: str, name: str) -> ClaudeTask:
    """One task file, checked: a JSON object of at most :data:`TASK_FILE_MAX_BYTES`
    that is a task whose ``id`` is its file name.

    Raises:
        FileNotFoundError: it is gone.
        InvalidFile: naming the file and what is wrong with it.
    """
    return _parse(ws, team, name)[2]


def _parse(ws: Workspace, team: str, name: str) -> tuple[bytes, dict[str, Any], ClaudeTask]:
    """:func:`read_task_file`, also returning the bytes read and the raw object."""
    path = ws.claude_tasks_dir(team) / name
    where = shown_task_path(ws, team, name)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise  # gone: the caller decides what that means
    except OSError as err:
        raise InvalidFile(where, "", f"cannot read: {err.strerror or err}") from err
    if size > TASK_FILE_MAX_BYTES:
        raise InvalidFile(
            where, "", f"too big for a task file ({size:,} bytes; at most {TASK_FILE_MAX_BYTES:,}): not read"
        )
    data, raw = read_json_with_bytes(path, dict, shown=where)
    task: ClaudeTask = validate_raw(ClaudeTask, raw, where)
    if task.id != name[: -len(".json")]:
        raise InvalidFile(where, "$.id", f"'{shown(task.id)}' is not the file's id ({name[: -len('.json')]})")
    return data, raw, task


def update_task_file(
    ws: Workspace, team: str, task_id: str, changes: Mapping[str, Any], *, stale_after: float = LOCK_STALE_S
) -> tuple[ClaudeTask, ClaudeTask]:
    """Change fields of one task as Claude Code's TaskUpdate does, under the list's lock.

    Args:
        ws: the workspace (its clock stamps ``updatedAt`` when the file has one).
        team: the list (the team).
        task_id: the task.
        changes: field -> new value; fields not named are kept exactly.
        stale_after: the lock's stale time (tests shorten it).

    Returns:
        The task before and after.

    Raises:
        NotFound: no such task file.
        InvalidFile: the file is not a valid task (it is left as it is).
        Busy, WriteFailed: the lock or the disk refused; the file is unchanged.
    """
    name = task_file_name(task_id)
    directory = ws.claude_tasks_dir(team)
    path = directory / name
    if not path.is_file():
        raise NotFound(f"no task {task_id} in the task list of team '{team}' ({shown_task_path(ws, team, name)})")
    with list_locked(ws, team, stale_after=stale_after):
        try:
            data, raw, before = _parse(ws, team, name)
        except FileNotFoundError:
            raise NotFound(f"task {task_id} of team '{team}' was removed meanwhile; nothing was written") from None
        edited = dict(raw)
        edited.update(changes)
        if "updatedAt" in edited and edited != raw:
            edited["updatedAt"] = _stamp(raw["updatedAt"], ws.clock())
        after = ClaudeTask.model_validate(edited)
        if edited != raw:
            atomic_replace(path, encode_like(data, edited), crash_prefix="claude-task")
    return before, after


def write_task_file(ws: Workspace, team: str, task: dict[str, Any]) -> Path:
    """Write ``tasks/<team>/<id>.json`` of a team's task list as Claude Code's TaskCreate
    and TaskUpdate tools do (the whole file, 2-space JSON).

    Raises:
        InvalidId: a bad team name; ValueError: an id that is not a number.
        WriteFailed: the disk refused.
    """
    task_id = str(task["id"])
    if not task_id.isdigit():
        raise ValueError(f"Claude Code task ids are numbers, not '{task_id}'")
    path = ws.claude_tasks_dir(team) / f"{task_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_replace(path, encode_pretty(task), crash_prefix="claude-task")
    return path


@contextmanager
def list_locked(ws: Workspace, team: str, *, stale_after: float = LOCK_STALE_S) -> Iterator[None]:
    """Hold the task list's lock (both forms, see the module) during the block.

    Raises:
        Busy: another writer kept it past the timeout.
        WriteFailed: the lock could not be created.
    """
    directory = ws.claude_tasks_dir(team)
    what = str(ws.rel(directory))
    with dir_locked(directory / LIST_LOCK, stale_after=stale_after, what=what):
        try:
            fd = take_flock(directory / LIST_LOCK, LOCK_TIMEOUT_S, record=False)
        except TimeoutError:
            raise Busy(f"{what} is busy: {LIST_LOCK} is locked (flock) by another process. Try again.") from None
        except OSError as err:
            raise WriteFailed(f"could not lock {what}/{LIST_LOCK}: {err.strerror or err}; nothing was written") from err
        try:
            yield
        finally:
            release_flock(fd)


def _stamp(previous: Any, now: datetime) -> Any:
    """``now`` in the form ``previous`` had (epoch ms for a number, else ISO text)."""
    if isinstance(previous, (int, float)) and not isinstance(previous, bool):
        return int(now.timestamp() * 1000)
    return iso(now)


def encode_like(original: bytes, value: Any) -> bytes:
    """``value`` as JSON formatted like ``original``: indented by two when the original
    spans lines, else one compact line; its trailing whitespace kept."""
    text = original.decode("utf-8-sig", "replace")
    body = text.rstrip()
    tail = text[len(body) :]
    layout: dict[str, Any] = {"indent": 2} if "\n" in body else {"separators": (",", ":")}
    try:
        return (json.dumps(value, ensure_ascii=False, allow_nan=False, **layout) + tail).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: keep its meaning with ASCII escapes
        return (json.dumps(value, ensure_ascii=True, allow_nan=False, **layout) + tail).encode("ascii")


def misnamed_problem(ws: Workspace, team: str, name: str) -> InvalidFile:
    """The problem of a JSON file in a task list whose name is not a task id."""
    return InvalidFile(
        shown_task_path(ws, team, name), "", "not a task file: a task file is named by its numeric id (1.json)"
    )


def read_claude_tasks(ws: Workspace, team: str) -> TaskList:
    """Read every file of ``tasks/<team>/``; a bad file is reported, the others still read."""
    result = TaskList(team)
    listing = list_task_files(ws, team)
    for name in listing.names:
        try:
            result.tasks.append(read_task_file(ws, team, name))
        except FileNotFoundError:
            continue
        except InvalidFile as err:
            result.problems.append(str(err))
    result.problems += [str(misnamed_problem(ws, team, name)) for name in listing.misnamed]
    return result
