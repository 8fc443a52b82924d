"""Batches of changed paths under a workspace, for the live views.

watchfiles gives a batch once pending changes stop growing for one ``step``; with its
defaults (debounce 1600 ms, step 50 ms) a single change takes ~76 ms to arrive and a
burst of new files over a second, so this module tunes it low (debounce 50, step 5:
~8 ms, measured over 1,000 watched files; step 10 took ~15 ms, and step 2 ~4 ms but
about twice the idle CPU, 0.9 % of a core for the watcher alone). Atomic replaces arrive as *added* plus our temp file's name:
every kind of change is treated the same (the reader re-reads the path), and our temp
files and Claude Code's ``*.lock`` directories are dropped.

inotify cannot see changes made on another host (NFS, SMB) or through some FUSE and
9p mounts; for those, and when a workspace setting asks for it, the watcher polls.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import watchfiles

from teamdeck.store.atomic import is_temp_name

log = logging.getLogger(__name__)

T = TypeVar("T")

DEBOUNCE_MS = 50
STEP_MS = 5
POLL_DELAY_MS = 250

REMOTE_FILESYSTEMS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "9p",
        "fuse.sshfs",
        "sshfs",
        "afs",
        "ceph",
        "glusterfs",
        "fuse.glusterfs",
        "lustre",
        "gpfs",
        "fuse.rclone",
        "virtiofs",
        "vboxsf",
        "fuse.s3fs",
        "davfs",
        "fuse.davfs2",
    }
)
"""Filesystem types whose changes inotify may not report (written by other hosts or a
hypervisor): the watcher polls them instead."""


def is_ignored(path: Path, root: Path) -> bool:
    """Whether a changed ``path`` under ``root`` is noise: one of our temp files, a lock
    file or a lock directory (or anything inside one)."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts
    return any(is_temp_name(part) for part in parts)


def filesystem_type(path: Path) -> str | None:
    """The type of the filesystem ``path`` lives on, from /proc/self/mountinfo (Linux);
    None where that cannot be told."""
    try:
        text = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    target = str(path.resolve())
    best, best_type = "", None
    for line in text.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        mount_point = fields[4].replace("\\040", " ")
        fs_type = line.split(" - ", 1)[1].split()[0]
        inside = target == mount_point or target.startswith(mount_point.rstrip("/") + "/")
        if inside and len(mount_point) >= len(best):
            best, best_type = mount_point, fs_type
    return best_type


def needs_polling(root: Path) -> bool:
    """Whether inotify cannot be trusted to see changes under ``root``."""
    return filesystem_type(root) in REMOTE_FILESYSTEMS


def watch_batches(
    root: Path,
    stop: threading.Event,
    *,
    force_polling: bool | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    step_ms: int = STEP_MS,
    ready: threading.Event | None = None,
) -> Iterator[frozenset[Path]]:
    """Yield each batch of changed paths under ``root`` until ``stop`` is set.

    Args:
        root: the workspace directory (watched recursively).
        stop: set it to end the iteration (checked every ``step_ms``).
        force_polling: True polls, False uses inotify, None decides from the filesystem
            type (:func:`needs_polling`) or ``$WATCHFILES_FORCE_POLLING``.
        debounce_ms: the longest a batch may keep growing before it is yielded.
        step_ms: a batch is yielded once no new change arrived for this long.
        ready: set once the watch is in place: a change made after that is reported
            (a reader that reads everything after it misses nothing).

    Yields:
        Absolute paths that were added, modified or deleted (noise dropped); never empty.
    """
    polling = (
        needs_polling(root)
        if force_polling is None and not os.environ.get("WATCHFILES_FORCE_POLLING")
        else force_polling
    )
    try:
        yield from _batches(root, _Armed(stop, ready), polling, debounce_ms, step_ms)
    except (OSError, RuntimeError) as err:
        if polling:
            raise
        # inotify refused (watch limit reached, unsupported filesystem): poll instead.
        log.warning("file notifications unavailable for %s (%s); polling every %d ms", root, err, POLL_DELAY_MS)
        yield from _batches(root, _Armed(stop, ready), True, debounce_ms, step_ms)


class _Armed:
    """``stop`` as watchfiles asks it, which it does only once its watch is in place:
    the first question sets ``ready``."""

    def __init__(self, stop: threading.Event, ready: threading.Event | None) -> None:
        self.stop, self.ready = stop, ready

    def is_set(self) -> bool:
        if self.ready is not None:
            self.ready.set()
        return self.stop.is_set()


def _batches(
    root: Path, stop: _Armed, polling: bool | None, debounce_ms: int, step_ms: int
) -> Iterator[frozenset[Path]]:
    for changes in watchfiles.watch(
        root,
        watch_filter=None,
        debounce=debounce_ms,
        step=step_ms,
        stop_event=stop,
        rust_timeout=1000,
        raise_interrupt=False,
        force_polling=polling,
        poll_delay_ms=POLL_DELAY_MS,
        ignore_permission_denied=True,
    ):
        paths = {path for path in (Path(raw) for _change, raw in changes) if not is_ignored(path, root)}
        paths |= _files_in_new_directories(changes, root)
        if paths:
            yield frozenset(paths)


def _files_in_new_directories(changes: set[tuple[watchfiles.Change, str]], root: Path) -> set[Path]:
    """The files already inside directories that were just added.

    inotify watches a new directory only once it has seen it appear, so a file written
    into it at once (``mkdir -p agents/w9/artifacts && write final.json``) can arrive
    before the watch exists and never be reported. Walking each added directory closes
    that gap; a path reported twice is harmless (readers re-read it).
    """
    found: set[Path] = set()
    for change, raw in changes:
        if change != watchfiles.Change.added or not os.path.isdir(raw):
            continue
        for directory, subdirs, files in os.walk(raw):
            subdirs[:] = [name for name in subdirs if not is_temp_name(name)]
            found.update(Path(directory, name) for name in files if not is_temp_name(name))
    return {path for path in found if not is_ignored(path, root)}
