"""Reading and listing that never blocks or follows a trap, and writing only on change.

- :func:`list_entries` lists a directory without following symlinks, so callers can
  report a symlinked agent directory instead of walking into it (S9, R10).
- :func:`read_optional` reads a regular file with a size cap; a FIFO, device or
  directory in the place of a file is an :class:`InvalidFile`, never a hang.
- :func:`replace_if_changed` rewrites a file atomically only when its bytes differ, so
  regenerating the same report twice leaves the file (and its mtime) alone (F13).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from teamdeck.errors import InvalidFile, WriteFailed
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.loaders import MAX_FILE_BYTES, check_size
from teamdeck.store.paths import beneath, open_beneath


class Entry(NamedTuple):
    """One directory entry, described without following symlinks (a NamedTuple, not a
    dataclass: importing ``dataclasses`` would cost every ``send`` ~8 ms).

    Attributes:
        name: the name as on disk (undecodable bytes kept as surrogate escapes).
        path: the entry's full path.
        is_dir: a real directory (a symlink to one is not).
        is_symlink: a symbolic link, wherever it points.
    """

    name: str
    path: Path
    is_dir: bool
    is_symlink: bool


def list_entries(directory: Path) -> list[Entry]:
    """The entries of ``directory`` sorted by name; a missing directory has none (B16).

    Raises:
        InvalidFile: ``directory`` exists but cannot be listed (not a directory, EACCES).
    """
    try:
        with os.scandir(directory) as scan:
            entries = [
                Entry(item.name, Path(item.path), item.is_dir(follow_symlinks=False), item.is_symlink())
                for item in scan
            ]
    except FileNotFoundError:
        return []
    except OSError as err:
        raise InvalidFile(directory, "", f"cannot list: {err.strerror or err}") from err
    return sorted(entries, key=lambda entry: entry.name)


def read_optional(path: Path, limit: int | None = MAX_FILE_BYTES, *, shown: Path | str | None = None) -> bytes | None:
    """The bytes of the regular file ``path``, or None when it does not exist.

    Args:
        path: the file.
        limit: refuse files bigger than this many bytes unread (None: no cap).
        shown: how to name the file in messages (default: ``path``).

    Raises:
        InvalidFile: not a regular file, too big, or unreadable.
    """
    name = shown if shown is not None else path
    try:
        fd = open_beneath(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise InvalidFile(name, "", f"cannot read: {err.strerror or err}") from err
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InvalidFile(name, "", "is not a regular file")
        if limit is not None:
            check_size(Path(name), info.st_size, limit)
        chunks = []
        while chunk := os.read(fd, 1024 * 1024):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as err:
        raise InvalidFile(name, "", f"cannot read: {err.strerror or err}") from err
    finally:
        os.close(fd)


def replace_if_changed(path: Path, data: bytes, *, crash_prefix: str = "file") -> bool:
    """Atomically replace ``path`` with ``data`` unless it already holds exactly that.

    Creates the parent directory if needed. Call under the lock that guards ``path``
    when more than one writer may produce it.

    Returns:
        Whether the file was written.

    Raises:
        WriteFailed: the disk refused; the old file is intact.
        InvalidFile: something that is not a regular file is in the way.
    """
    try:
        current = read_optional(path, limit=None)
    except InvalidFile:
        current = None  # unreadable or odd: replacing it is the repair
    if current == data:
        return False
    ensure_dir(path.parent)
    atomic_replace(path, data, crash_prefix=crash_prefix)
    return True


def ensure_dir(directory: Path) -> None:
    """Create ``directory`` and its parents if missing, never through a link out of the workspace.

    Raises:
        WriteFailed: the disk refused (EROFS, EACCES...) or a link on the way leads
            outside the workspace; nothing was created.
    """
    try:
        beneath(directory).mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise WriteFailed(f"could not create {directory}: {err.strerror or err}; nothing was written") from err


Stamp = tuple[int, int]
"""A file's (mtime in ns, size): equal stamps mean nothing changed it in between."""


def stamp(path: Path) -> Stamp | None:
    """The stamp of ``path`` now (None: it does not exist or cannot be stat'ed)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


FileState = tuple[int, int, int]
"""A file's (mtime in ns, size, inode): an atomic replace changes the inode even when
the size and the clock tick stay the same."""


def file_states(places: Iterable[Path]) -> dict[str, FileState]:
    """Every file under each of ``places`` (a directory, walked without following links)
    or the place itself when it is a file, by its path as a string, with its state now;
    what cannot be read is left out (the read that follows reports it). Strings, not
    :class:`Path`: at 10,000 files making, hashing and pickling the Paths was half the
    cost of a record the TUI takes on its start."""
    states: dict[str, FileState] = {}
    pending = []
    for place in places:
        try:
            info = os.stat(place, follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode):
            pending.append(str(place))
        else:
            states[str(place)] = (info.st_mtime_ns, info.st_size, info.st_ino)
    while pending:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(entry.path)
                            continue
                        info = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    states[entry.path] = (info.st_mtime_ns, info.st_size, info.st_ino)
        except OSError:
            continue
    return states


def changed_files(before: dict[str, FileState], after: dict[str, FileState]) -> set[Path]:
    """The files added, removed or changed between two :func:`file_states`."""
    return {Path(path) for path in before.keys() | after.keys() if before.get(path) != after.get(path)}
