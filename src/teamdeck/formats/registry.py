"""Every team format teamdeck knows, and which one a team is in.

:data:`BUILTINS` lists the formats that come with teamdeck. A package outside teamdeck
adds one through the ``teamdeck.team_formats`` entry-point group (the entry point names
an object with :class:`~teamdeck.formats.format.TeamFormat`'s members, or a class that
makes one without arguments)::

    [project.entry-points."teamdeck.team_formats"]
    acme = "teamdeck_acme:AcmeFormat"

A workspace may hold teams of several formats: each team is detected on its own
(:func:`team_format`), the built-in formats asked first. Entry points are scanned only
when no built-in format has the team, once per process: ``send`` runs on every agent
turn and must not pay for ``importlib.metadata``.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from teamdeck.formats.claude_code.format import ClaudeCodeFormat
from teamdeck.formats.ripperdoc.format import RipperdocFormat

if TYPE_CHECKING:
    from teamdeck.formats.format import TeamFile, TeamFormat
    from teamdeck.store.workspace import Workspace

ENTRY_POINT_GROUP = "teamdeck.team_formats"

CLAUDE_CODE: TeamFormat = ClaudeCodeFormat()

RIPPERDOC: TeamFormat = RipperdocFormat()

BUILTINS: tuple[TeamFormat, ...] = (RIPPERDOC, CLAUDE_CODE)
"""The formats that come with teamdeck, asked in this order: Ripperdoc's first, because
its team directories are Claude Code's layout plus Ripperdoc's ``.lock``."""

DEFAULT = CLAUDE_CODE
"""The format of a team no format has (yet): what ``team create`` makes, and what
reports a missing team."""


@functools.cache
def outside_formats() -> tuple[TeamFormat, ...]:
    """The formats other packages registered under :data:`ENTRY_POINT_GROUP`, loaded
    once per process."""
    from importlib.metadata import entry_points

    found = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        loaded = point.load()
        found.append(loaded() if isinstance(loaded, type) else loaded)
    return tuple(found)


def all_formats() -> tuple[TeamFormat, ...]:
    """Every format: the built-in ones, then those of other packages."""
    return (*BUILTINS, *outside_formats())


def team_format(ws: Workspace, team: str) -> TeamFormat:
    """The format ``team`` is kept in: the first whose roster file the team has, else
    :data:`DEFAULT` (which then reports the team missing, or creates it)."""
    for candidate in BUILTINS:
        if candidate.has_team(ws, team):
            return candidate
    for candidate in outside_formats():
        if candidate.has_team(ws, team):
            return candidate
    return DEFAULT


def team_names(ws: Workspace) -> tuple[list[str], list[str]]:
    """The teams of every format, sorted (a name two formats claim counts once), and the
    lines of every directory skipped (see
    :meth:`~teamdeck.formats.format.TeamFormat.team_names`)."""
    names: set[str] = set()
    ignored: list[str] = []
    for candidate in all_formats():
        found, skipped = candidate.team_names(ws)
        names.update(found)
        ignored += [line for line in skipped if line not in ignored]
    return sorted(names), ignored


def log_file(ws: Workspace, team: str) -> Path:
    """teamdeck's own log of ``team``, where the team's format keeps it (see
    :meth:`~teamdeck.formats.format.TeamFormat.log_file`)."""
    return team_format(ws, team).log_file(ws, team)


TEAMDECK_TASK_FILES = ("task.yaml", "events.jsonl")
"""A directory under ``tasks/`` holding either is a teamdeck task."""


def holds_teamdeck_task(path: Path) -> bool:
    """Whether the directory ``path`` is a teamdeck task, asked without the formats (so
    without ``importlib.metadata``: every writing command asks it at its start)."""
    return any((path / name).exists() for name in TEAMDECK_TASK_FILES)


def task_dir_kind(path: Path) -> Literal["teamdeck", "task-list", "empty", "other", "missing"]:
    """What a directory under ``tasks/`` is: a teamdeck task (it holds ``task.yaml`` or
    ``events.jsonl``), a team's task list in some format, ``empty``, ``other``, or
    ``missing`` when there is no such directory."""
    try:
        names = os.listdir(path)
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    if any(name in names for name in TEAMDECK_TASK_FILES):
        return "teamdeck"
    if any(candidate.holds_task_list(names) for candidate in all_formats()):
        return "task-list"
    return "empty" if not names else "other"


def team_file(parts: tuple[str, ...]) -> TeamFile | None:
    """What a changed path (its parts under the workspace root) is to the first format
    that knows it, or None."""
    for candidate in all_formats():
        found = candidate.file_of(parts)
        if found is not None:
            return found
    return None
