"""Where Ripperdoc keeps a team, and how its files are read, locked and written.

Ripperdoc 0.6.2 (``ripperdoc/utils/collaboration/teams.py``) keeps a team in
``teams/<team>/``: ``config.json`` (the roster), ``inboxes/<member>.json`` (one JSON
array per recipient) and ``messages.jsonl`` (its own log of every message sent), all
guarded by one ``fcntl.flock(LOCK_EX)`` on ``teams/<team>/.lock`` - a file every
Ripperdoc writer creates before it writes anything, so its presence is what tells a
Ripperdoc team from a Claude Code one. JSON files are written whole, through a temp file
and ``os.replace`` (``json.dumps(indent=2, ensure_ascii=False)`` plus a newline): a reader
never sees one half-written, so nothing here retries a read.

teamdeck takes the same flock for every write it makes to a Ripperdoc team, so its
writers and Ripperdoc's exclude each other. Its own records of the team (the log of what
it did, the MCP connections) are files of teamdeck's names in the team directory
(:data:`TEAMDECK_LOG`, ``connections/``): Ripperdoc reads only config.json, inboxes/
and messages.jsonl, and takes every line of messages.jsonl for one of its messages.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from teamdeck.errors import Busy, InvalidFile, WriteFailed
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.loaders import parse_json, read_capped
from teamdeck.store.locks import LOCK_TIMEOUT_S, release_flock, take_flock
from teamdeck.store.paths import check_member, check_team
from teamdeck.store.workspace import Workspace

ROSTER = "config.json"
INBOXES = "inboxes"
TEAM_LOCK = ".lock"
"""The file Ripperdoc flocks for every change of a team (and its task lists for theirs)."""
RIPPERDOC_LOG = "messages.jsonl"
"""Ripperdoc's own log of the team's messages (never teamdeck's records)."""
TEAMDECK_LOG = "teamdeck.jsonl"
"""teamdeck's own log of a Ripperdoc team (model/team_log.py), beside Ripperdoc's: gone
with the team directory when Ripperdoc deletes it, as a Claude Code team's log is."""

MAX_BYTES = 32 * 1024 * 1024
"""Cap on one Ripperdoc JSON file: its inboxes are never pruned and grow for as long as
a team lives."""


def team_dir(ws: Workspace, team: str) -> Path:
    """``teams/<team>/``."""
    return ws.teams_dir / check_team(team)


def roster_file(ws: Workspace, team: str) -> Path:
    """``teams/<team>/config.json``."""
    return team_dir(ws, team) / ROSTER


def inboxes_dir(ws: Workspace, team: str) -> Path:
    """``teams/<team>/inboxes/``."""
    return team_dir(ws, team) / INBOXES


def inbox_file(ws: Workspace, team: str, member: str) -> Path:
    """``teams/<team>/inboxes/<member>.json``."""
    return inboxes_dir(ws, team) / f"{check_member(member)}.json"


def team_of_inbox(path: Path) -> str:
    """The team an inbox file belongs to (``teams/<team>/inboxes/<member>.json``)."""
    return path.parent.parent.name


@contextmanager
def team_locked(directory: Path) -> Iterator[None]:
    """Hold Ripperdoc's lock of a team (or task list) directory: the flock of its
    ``.lock``, the file left as Ripperdoc leaves it (teamdeck writes no holder in it).

    Raises:
        Busy: another process kept it past the timeout.
        WriteFailed: the lock file could not be opened.
    """
    try:
        fd = take_flock(directory / TEAM_LOCK, LOCK_TIMEOUT_S, record=False)
    except TimeoutError:
        raise Busy(f"{directory.name} is busy: its {TEAM_LOCK} is locked by another process. Try again.") from None
    except OSError as err:
        raise WriteFailed(
            f"could not lock {directory}/{TEAM_LOCK}: {err.strerror or err}; nothing was written"
        ) from err
    try:
        yield
    finally:
        release_flock(fd)


def read_json(path: Path, expect: type, shown: str) -> Any:
    """``path`` parsed as JSON of type ``expect``.

    Raises:
        FileNotFoundError: it does not exist.
        InvalidFile: naming ``shown``, when it is not JSON of that type (or too big).
    """
    value = parse_json(read_capped(path, MAX_BYTES), Path(shown), limit=MAX_BYTES)
    if not isinstance(value, expect):
        raise InvalidFile(shown, "", f"expected a JSON {'array' if expect is list else 'object'}")
    return value


def encode(value: Any) -> bytes:
    """``value`` as Ripperdoc writes its JSON files: indented by two, non-ASCII kept, a
    final newline (a lone surrogate written as an ASCII escape, keeping its meaning)."""
    try:
        return (json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(value, indent=2, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")


def write_json(path: Path, value: Any, *, crash_prefix: str) -> None:
    """Replace ``path`` with ``value`` atomically (the caller holds the team's lock).

    Raises:
        WriteFailed: the disk refused; the file is unchanged.
    """
    atomic_replace(path, encode(value), crash_prefix=crash_prefix)


def object_at(holder: dict[str, Any], key: str) -> dict[str, Any]:
    """``holder[key]`` when it is a JSON object, else an empty one (Ripperdoc's optional
    ``metadata`` objects)."""
    value = holder.get(key)
    return value if isinstance(value, dict) else {}
