"""What is wrong with a workspace between its files: links out of it, files a crash left
behind, a task and a team sharing a name (S16, F1, F11, B21).

One walk of the workspace's areas (``tasks/``, ``teams/``, ``forge/``, ``plans/``, and
teamdeck's own bookkeeping in ``.teamdeck/``: intents, observed messages), never
following a link, finds:

- symbolic links that resolve outside the workspace (teamdeck neither reads nor writes
  through them, see :func:`teamdeck.store.paths.beneath`) (S16);
- temp files of an atomic replace (``.<name>.<random>.tmp``, every kind: task.yaml,
  inboxes, config.json, human-notes.md, reports..., and an intent's ``.<ulid>.json.tmp``)
  older than :data:`STALE_TEMP_S`: a writer holds one for milliseconds, so an old one
  was left by a crash (F1);
- lock directories (``<name>.json.lock``, Claude Code's mkdir lock) older than the
  lock's stale time: its writer died or is stuck, and the next writer waits for it (F11).

:func:`find_leftovers` finds them for ``teamdeck validate`` and ``teamdeck doctor``;
:func:`sweep_temp_files` removes the stale temp files (``teamdeck validate --clean``,
``teamdeck doctor --repair``, and ``forge serve`` when it starts). The TUI does not sweep at start: a walk of every file would lengthen its start
(``teamdeck validate`` reports what is left).
"""

from __future__ import annotations

import logging
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from teamdeck.formats.registry import all_formats, task_dir_kind, team_format, team_names
from teamdeck.store.dirlock import LOCK_STALE_S
from teamdeck.store.lock_owner import read_owner
from teamdeck.store.workspace import SETTINGS_FILE, Workspace

log = logging.getLogger(__name__)

AREAS = ("tasks", "teams", "forge", "plans", ".teamdeck")
"""teamdeck's own directories; with the team formats' (formats/format.py ``areas``),
what is walked: anything else at the root is not ours to walk."""

STALE_TEMP_S = 60.0
"""A temp file older than this was left by a writer that died (live ones last milliseconds)."""


@dataclass(frozen=True)
class Leftover:
    """One thing out of place.

    Attributes:
        path: the entry, relative to the workspace root.
        kind: ``"link"`` (a symbolic link out), ``"temp"`` or ``"lock"``.
        detail: the link's target, or the entry's age in seconds.
        holder: for a lock, who took it as its owner file records it
            (store/lock_owner.py: ``pid 4242 on host build-3 since 10:42:03``, and
            whether that process still runs), or ``""`` when none is recorded (Claude
            Code's own locks).
    """

    path: str
    kind: Literal["link", "temp", "lock"]
    detail: str
    holder: str = ""

    @property
    def message(self) -> str:
        """What is wrong and what to do, in one line."""
        if self.kind == "link":
            return (
                f"symbolic link to {self.detail}, outside the workspace; teamdeck neither reads nor writes through it"
            )
        if self.kind == "temp":
            return f"temp file left by a crash {_age(float(self.detail))} ago; `teamdeck validate --clean` removes it"
        by = f" by {self.holder}" if self.holder else ""
        return (
            f"lock taken{by} {_age(float(self.detail))} ago and not released: its writer died or is stuck; "
            f"the next writer breaks it (stale after {LOCK_STALE_S:.0f} s)"
        )


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def find_leftovers(ws: Workspace, *, now: float | None = None) -> Iterator[Leftover]:
    """Every link out, stale temp file and left-over lock directory, in walk order."""
    now = time.time() if now is None else now
    real_root = os.path.realpath(ws.root)
    areas = dict.fromkeys((*AREAS, *(area for files in all_formats() for area in files.areas)))
    pending = [os.path.join(ws.root, name) for name in (*areas, SETTINGS_FILE)]
    while pending:
        path = pending.pop()
        try:
            info = os.lstat(path)
        except OSError:
            continue
        relative = os.path.relpath(path, ws.root)
        age = now - info.st_mtime
        if stat.S_ISLNK(info.st_mode):
            target = os.path.realpath(path)
            if target != real_root and not target.startswith(real_root + os.sep):
                yield Leftover(relative, "link", target)
        elif stat.S_ISDIR(info.st_mode):
            if path.endswith(".lock"):
                if age > LOCK_STALE_S:
                    yield Leftover(relative, "lock", f"{age:.0f}", _holder(path))
                continue
            try:
                names = sorted(os.listdir(path), reverse=True)
            except OSError:
                continue
            pending.extend(os.path.join(path, name) for name in names)
        elif _is_temp(os.path.basename(path)) and age > STALE_TEMP_S:
            yield Leftover(relative, "temp", f"{age:.0f}")


def _holder(lock: str) -> str:
    """The recorded owner of a lock directory, for the message (see :class:`Leftover`)."""
    owner = read_owner(Path(lock))
    if owner is None:
        return ""
    state = {True: "still running", False: "no longer running", None: "on another host"}[owner.alive()]
    return f"{owner.describe()} ({state})"


def _is_temp(name: str) -> bool:
    """``.<name>.<random>.tmp``: the temp file of an atomic replace (store/atomic.py)."""
    return name.startswith(".") and name.endswith(".tmp") and name.count(".") >= 3


def sweep_temp_files(ws: Workspace, *, now: float | None = None) -> list[str]:
    """Remove every stale temp file (see :data:`STALE_TEMP_S`); each is logged.

    Returns:
        The removed files, relative to the workspace (one that vanished meanwhile or
        could not be removed is left out; ``validate`` still reports what remains).
    """
    removed = []
    for leftover in find_leftovers(ws, now=now):
        if leftover.kind != "temp":
            continue
        try:
            os.unlink(ws.root / leftover.path)
        except OSError:
            continue
        log.warning("removed %s: a temp file left by a crash", leftover.path)
        removed.append(leftover.path)
    return removed


def name_collisions(ws: Workspace) -> Iterator[tuple[str, str]]:
    """``(task dir, message)`` for each teamdeck task named like a team: it hides that
    team's Claude Code task list ``tasks/<team>/`` (B21)."""
    for team in team_names(ws)[0]:
        if task_dir_kind(team_format(ws, team).task_list_dir(ws, team)) == "teamdeck":
            yield (
                str(Path("tasks") / team),
                f"a teamdeck task named like team '{team}': it hides the team's Claude Code task list; rename the task",
            )
