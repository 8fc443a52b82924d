"""Claude Code team files on disk: listing teams, ``config.json``, task lists, removal.

``config.json`` is read with the same retries as an inbox (a writer may be mid-way)
and changed only under the same mkdir lock Claude Code uses for its inboxes
(``config.json.lock``), re-read under the lock, validated, and replaced atomically; the
raw JSON is edited, so fields we do not know survive (B13).

``tasks/`` holds both kinds of task directory: a teamdeck task (``task.yaml``,
``events.jsonl``) and a Claude Code task list (numbered JSON files and a ``.lock``).
:func:`task_dir_kind` tells them apart for every module that lists ``tasks/``.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar

from teamdeck.errors import NotFound, Refused, WriteFailed
from teamdeck.formats.claude_code.json_files import encode_pretty, read_json_retrying
from teamdeck.formats.layout import bury_team_dir, list_inbox_files
from teamdeck.model.team import TeamConfig
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.dirlock import LOCK_STALE_S, HeldLock, rewrite_locked
from teamdeck.store.loaders import validate_raw
from teamdeck.store.paths import InvalidId, beneath, check_team, shown
from teamdeck.store.workspace import Workspace

T = TypeVar("T")

TaskDirKind = Literal["teamdeck", "claude", "empty", "other"]

TASK_FILE_RE = re.compile(r"^(0|[1-9][0-9]{0,8})\.json$")
"""A Claude Code task file name: the task id (a decimal number) plus ``.json``."""


# --- teams ----------------------------------------------------------------------


TOMBSTONE = ".deleted-"
"""What Claude Code 2.1.332 puts in a team directory's name while it removes it at the
end of a session (``session-<8 hex>.deleted-<uuid>``): not a team."""


def is_tombstone(name: str) -> bool:
    """Whether ``name`` is a team directory being removed (:data:`TOMBSTONE`)."""
    return TOMBSTONE in name


def list_team_names(ws: Workspace) -> tuple[list[str], list[str]]:
    """The teams of the workspace: directories under ``teams/`` holding ``config.json``
    (not a hidden one, nor one Claude Code is removing: :func:`is_tombstone`).

    Returns:
        ``(names, ignored)``: valid team names sorted, and one line per directory whose
        name fails the allow-list (B17), with the name escaped.
    """
    try:
        children = sorted(os.listdir(ws.teams_dir))
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    names, ignored = [], []
    for child in children:
        if child.startswith(".") or is_tombstone(child):
            continue
        path = ws.teams_dir / child
        if not path.is_dir() or not (path / "config.json").is_file():
            continue
        try:
            names.append(check_team(child))
        except InvalidId as err:
            ignored.append(f"teams/{shown(child)}: ignored: {err}")
    return names, ignored


def config_shown(ws: Workspace, team: str) -> Path:
    """``teams/<team>/config.json`` as messages name it."""
    return ws.rel(ws.team_config(team))


def _read_config(ws: Workspace, team: str) -> tuple[dict[str, Any], TeamConfig]:
    """``config.json`` as read (a raw dict) and validated (a :class:`TeamConfig`).

    Raises:
        NotFound: the team has no config.json.
        InvalidFile: not a JSON object after retries, or not a team config.
    """
    path = ws.team_config(team)
    try:
        raw = read_json_retrying(path, dict, shown=config_shown(ws, team))
    except FileNotFoundError:
        raise NotFound(f"team '{team}' not found: no {config_shown(ws, team)}") from None
    return raw, validate_raw(TeamConfig, raw, config_shown(ws, team))


def load_config_raw(ws: Workspace, team: str) -> dict[str, Any]:
    """``config.json`` as a raw dict, validated as a :class:`TeamConfig` (raises as
    :func:`_read_config`): what a writer changes, so nothing is normalised away."""
    return _read_config(ws, team)[0]


def read_team_config(ws: Workspace, team: str) -> TeamConfig:
    """The team's ``config.json`` as a :class:`TeamConfig` (raises as :func:`_read_config`)."""
    return _read_config(ws, team)[1]


def transact_config(
    ws: Workspace, team: str, change: Callable[[dict[str, Any]], tuple[T, bool]], *, stale_after: float = LOCK_STALE_S
) -> T:
    """Read-modify-write ``config.json`` under its mkdir lock.

    Args:
        ws: the workspace.
        team: the team.
        change: given the raw config read under the lock (mutate it in place), returns
            ``(result, changed)``; the file is rewritten only when ``changed``, and only
            if the result is still a valid team config.
        stale_after: the lock's stale time.

    Raises:
        NotFound, InvalidFile: see :func:`load_config_raw`.
        Busy, WriteFailed: the lock or the disk refused; config.json is unchanged.
    """
    path = ws.team_config(team)
    if not path.is_file():
        raise NotFound(f"team '{team}' not found: no {config_shown(ws, team)}")

    def attempt(held: HeldLock) -> T:
        seen = path.read_bytes()
        raw = load_config_raw(ws, team)
        result, changed = change(raw)
        if changed:
            validate_raw(TeamConfig, raw, config_shown(ws, team))
            atomic_replace(path, encode_pretty(raw), crash_prefix="config", check=held.unchanged(path, seen))
        return result

    return rewrite_locked(path, attempt, stale_after=stale_after, what=str(config_shown(ws, team)))


def create_team_files(ws: Workspace, team: str, config: dict[str, Any]) -> None:
    """Create ``teams/<team>/`` (config.json, inboxes/) and the task list ``tasks/<team>/``
    (with Claude Code's empty ``.lock``), as TeamCreate does.

    The team directory is created with an exclusive mkdir, so two creators cannot both
    succeed.

    Raises:
        Refused: the team exists, or ``tasks/<team>/`` is already something else.
        WriteFailed: the disk refused; what was created is removed again.
    """
    team_dir = ws.team_dir(team)
    tasks_dir = ws.claude_tasks_dir(team)
    if task_dir_kind(tasks_dir) not in ("claude", "empty", "missing"):
        raise Refused(
            f"Could not create team '{team}': {ws.rel(tasks_dir)} is already a teamdeck task "
            "or another directory; choose another team name"
        )
    try:
        beneath(tasks_dir)
        beneath(team_dir).parent.mkdir(parents=True, exist_ok=True)
        team_dir.mkdir()
    except FileExistsError:
        raise Refused(f"Could not create team '{team}': it already exists ({ws.rel(team_dir)})") from None
    except OSError as err:
        raise WriteFailed(f"could not create {ws.rel(team_dir)}: {err.strerror or err}; nothing was written") from err
    try:
        ws.inboxes_dir(team).mkdir()
        atomic_replace(ws.team_config(team), encode_pretty(config), crash_prefix="config")
        tasks_dir.mkdir(parents=True, exist_ok=True)
        (tasks_dir / ".lock").touch()
    except (OSError, WriteFailed) as err:
        shutil.rmtree(team_dir, ignore_errors=True)
        why = err.strerror if isinstance(err, OSError) else str(err)
        raise WriteFailed(f"could not create team '{team}': {why}; nothing was kept") from err


def remove_team_files(ws: Workspace, team: str, *, tombstone: str) -> list[str]:
    """Remove ``teams/<team>/`` and, if it is a Claude Code task list, ``tasks/<team>/``.

    The team directory is first renamed to ``teams/.<team>.deleted-<tombstone>`` so it
    disappears for readers in one step, then removed.

    Returns:
        The workspace-relative directories removed.

    Raises:
        NotFound: the team does not exist.
        WriteFailed: the rename was refused; nothing was removed.
    """
    removed = [bury_team_dir(ws, team, ws.team_dir(team), tombstone=tombstone)]
    tasks_dir = ws.claude_tasks_dir(team)
    if task_dir_kind(tasks_dir) in ("claude", "empty"):
        shutil.rmtree(tasks_dir, ignore_errors=True)
        removed.append(str(ws.rel(tasks_dir)))
    return removed


# --- inboxes --------------------------------------------------------------------


def list_inbox_paths(ws: Workspace, team: str) -> tuple[list[Path], list[str]]:
    """The inbox files of a team (``inboxes/*.json``, our temp files and locks skipped).

    Returns:
        ``(paths, ignored)``: inboxes whose names are usable member names, sorted, and
        one line per file whose name fails the member allow-list (B17).
    """
    return list_inbox_files(ws, ws.inboxes_dir(team), lambda member: ws.inbox(team, member))


# --- tasks/<team>/ : Claude Code task lists ---------------------------------------


def holds_task_list(names: list[str]) -> bool:
    """Whether a directory holding ``names`` is a Claude Code task list: numbered JSON
    task files or Claude Code's ``.lock``."""
    return ".lock" in names or any(TASK_FILE_RE.match(name) for name in names)


def task_dir_kind(path: Path) -> TaskDirKind | Literal["missing"]:
    """What a directory under ``tasks/`` is.

    Returns:
        ``"teamdeck"`` (it holds task.yaml or events.jsonl), ``"claude"`` (numbered JSON
        task files or Claude Code's ``.lock``), ``"empty"``, ``"other"``, or
        ``"missing"`` when there is no such directory.
    """
    try:
        names = os.listdir(path)
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    if "task.yaml" in names or "events.jsonl" in names:
        return "teamdeck"
    if holds_task_list(names):
        return "claude"
    return "empty" if not names else "other"
