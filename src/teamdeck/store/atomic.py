"""Whole-file replacement that leaves either the old or the new file, never half (R1)."""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable
from pathlib import Path

from teamdeck.errors import WriteFailed
from teamdeck.store import fs as fs_seam
from teamdeck.store.paths import beneath

log = logging.getLogger(__name__)
_warned_mounts: set[int] = set()
_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read once at import: os.umask is process-wide, not thread-safe to probe later


class Superseded(Exception):
    """An :func:`atomic_replace` given a ``check`` found, just before renaming, that its
    data was built from a file that has changed since (nothing was replaced)."""


def tmp_prefix(path: Path) -> str:
    """The prefix of our temp files for ``path``; readers and the watcher skip them."""
    return f".{path.name}."


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is one of our temp files (or Claude Code's lock dirs)."""
    return (name.startswith(".") and name.endswith((".tmp", ".lock.owner"))) or name.endswith(".lock")


def atomic_replace(
    path: Path, data: bytes, *, crash_prefix: str = "file", check: Callable[[], bool] | None = None
) -> None:
    """Write ``data`` to ``path`` through a temp file, fsync, rename, fsync the dir.

    Args:
        path: the target file; its directory must exist.
        data: the complete new content.
        crash_prefix: names the crash points (``<prefix>.after_tmp_write`` ...).
        check: asked just before the rename whether ``data`` may still replace the
            file (store/dirlock.py ``HeldLock.unchanged``); False leaves it as it is.

    Raises:
        Superseded: ``check`` said no; ``path`` is unchanged and no temp file is left.
        WriteFailed: the disk refused; ``path`` is unchanged and no temp file is left.
    """
    fs = fs_seam.current()
    try:
        fd, tmp = _create_temp(path)
    except OSError as err:
        raise WriteFailed(
            f"could not write {path.name}: {err.strerror} creating a temp file in {path.parent}; nothing was changed"
        ) from err
    try:
        os.fchmod(fd, _mode_for(path))
        fs.write_all(fd, data)
        fs.crash_point(f"{crash_prefix}.after_tmp_write")
        fs.fsync(fd)
        fs.crash_point(f"{crash_prefix}.after_tmp_fsync")
    except OSError as err:
        os.close(fd)
        os.unlink(tmp)
        raise WriteFailed(f"could not write {path.name}: {err.strerror or err}; {path.name} was not changed") from err
    os.close(fd)
    fs.crash_point(f"{crash_prefix}.before_replace")
    if check is not None and not check():
        os.unlink(tmp)
        raise Superseded(f"{path.name} changed since it was read, or its lock was lost")
    try:
        fs.replace(tmp, path)
    except OSError as err:
        os.unlink(tmp)
        raise WriteFailed(f"could not replace {path.name}: {err.strerror or err}; it was not changed") from err
    fs.crash_point(f"{crash_prefix}.after_replace")
    fsync_dir(path.parent)


def _create_temp(path: Path) -> tuple[int, Path]:
    """A new, uniquely named temp file beside ``path``, created through the fs seam.

    Raises:
        OSError: it could not be created (ENOSPC, EROFS, EACCES...).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
    while True:
        tmp = path.with_name(f"{tmp_prefix(path)}{os.urandom(6).hex()}.tmp")
        try:
            return fs_seam.current().open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue


def _mode_for(path: Path) -> int:
    """Keep the target's permissions; a new file gets 0644 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return 0o644 & ~_UMASK


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable; warn once per mount where unsupported (F9)."""
    fs = fs_seam.current()
    dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fs.fsync_dir(dfd)
    except OSError as err:
        if err.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise WriteFailed(f"could not make the change in {directory} durable: {err.strerror}") from err
        device = os.fstat(dfd).st_dev
        if device not in _warned_mounts:
            _warned_mounts.add(device)
            log.warning("directory fsync unsupported on %s; renames may not survive power loss", directory)
    finally:
        os.close(dfd)


def remove_stale_temps(directory: Path, target_name: str) -> list[Path]:
    """Remove our leftover temp files for ``target_name`` in ``directory`` (after a crash).

    Call only while holding the target's lock, so no live writer owns them.

    Returns:
        The temp files removed (the caller logs them).
    """
    removed: list[Path] = []
    prefix = f".{target_name}."
    try:
        names = os.listdir(beneath(directory))
    except FileNotFoundError:
        return removed
    for name in names:
        if name.startswith(prefix) and name.endswith(".tmp"):
            stale = directory / name
            try:
                os.unlink(stale)
                removed.append(stale)
            except FileNotFoundError:
                pass
    return removed
