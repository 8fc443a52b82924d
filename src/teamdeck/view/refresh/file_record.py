"""The state of every file a snapshot is read from, at one moment: taken before a read
that no watcher covers (the TUI's first read, in a forked child), it tells later what
changed since. Apart from view/refresh/build.py so that the TUI can compare two records before
it imports the readers (it imports them after its first frame)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.store.files import FileState, changed_files, file_states
from teamdeck.store.workspace import SETTINGS_FILE

if TYPE_CHECKING:
    from pathlib import Path

    from teamdeck.store.workspace import Workspace

FileRecord = dict[str, FileState]
"""The state of every file a snapshot is read from, by path (:func:`file_record`)."""


def file_record(ws: Workspace) -> FileRecord:
    """The state now of every file a snapshot of ``ws`` is read from (tasks/, teams/,
    plans/, forge/ and the settings)."""
    return file_states((ws.tasks_dir, ws.teams_dir, ws.plans_dir, ws.forge_dir, ws.root / SETTINGS_FILE))


def changed_between(before: FileRecord, after: FileRecord) -> set[Path]:
    """The files added, removed or changed between two records (refresh them)."""
    return changed_files(before, after)
