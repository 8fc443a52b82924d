"""Claude Code's lock for its team files: a *directory* ``<file>.lock`` made with mkdir.

Claude Code guards each inbox (and we guard ``config.json`` the same way) with
``<name>.json.lock``, a directory: ``mkdir`` either creates it (the lock is ours) or
fails because it exists (someone else holds it). A lock whose mtime is older than
:data:`LOCK_STALE_S` was left by a writer that died, and is broken. We must speak this
protocol, not our own flock, so that Claude Code's writers and ours exclude each other
(R4, C1, C10).

Breaking a stale lock is itself a race (two waiters both see it stale; the second
would remove the lock the first just took), so our breakers serialise on a ``flock``
of the containing directory and re-check the lock's identity before removing it.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import random
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from teamdeck.errors import Busy, WriteFailed
from teamdeck.store import fs as fs_seam

log = logging.getLogger(__name__)

LOCK_STALE_S = 10.0
"""Claude Code's rule: a lock directory older than this was left by a dead writer."""

LOCK_GRACE_S = 2.0
"""How long past the stale time a waiter keeps trying before it reports Busy."""

_FIRST_DELAY_S = 0.001
_MAX_DELAY_S = 0.02


def lock_dir_for(path: Path) -> Path:
    """The lock directory that guards ``path``: ``<name>.lock`` beside it."""
    return path.with_name(path.name + ".lock")


@contextmanager
def dir_locked(
    path: Path, *, stale_after: float = LOCK_STALE_S, timeout: float | None = None, what: str | None = None
) -> Iterator[None]:
    """Hold Claude Code's mkdir lock for ``path`` during the block.

    Args:
        path: the file to be read-modified-written (its directory must exist).
        stale_after: seconds after which an existing lock directory is broken
            (injectable so tests need not wait 10 s).
        timeout: seconds to keep trying; by default a little longer than
            ``stale_after``, so a lock left by a dead writer is always broken first.
        what: how to name the file in messages (defaults to its name).

    Raises:
        Busy: a live writer kept the lock for the whole timeout.
        WriteFailed: the lock directory could not be created (EROFS, EACCES...).
    """
    lock = lock_dir_for(path)
    limit = stale_after + LOCK_GRACE_S if timeout is None else timeout
    deadline = time.monotonic() + limit
    delay = _FIRST_DELAY_S
    fs = fs_seam.current()
    while True:
        try:
            fs.mkdir(lock, 0o755)
            break
        except FileExistsError:
            if _break_if_stale(lock, stale_after):
                continue
            if time.monotonic() >= deadline:
                raise Busy(
                    f"{what or path.name} is busy: lock {lock.name} held by another writer "
                    f"for {_age(lock):.0f} s. Try again."
                ) from None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, _MAX_DELAY_S)
        except OSError as err:
            raise WriteFailed(
                f"could not lock {what or path.name}: {err.strerror or err} creating {lock.name}; nothing was written"
            ) from err
    try:
        yield
    finally:
        try:
            fs.rmdir(lock)
        except FileNotFoundError:
            pass  # our lock was broken as stale by someone else, or its directory was removed


def _age(lock: Path) -> float:
    try:
        return max(0.0, time.time() - lock.stat().st_mtime)
    except OSError:
        return 0.0


def _break_if_stale(lock: Path, stale_after: float) -> bool:
    """Remove ``lock`` if it is older than ``stale_after``.

    Returns:
        True when the caller should try mkdir again at once (the lock was removed
        or is already gone), False when it is held and fresh.
    """
    try:
        seen = os.stat(lock)
    except FileNotFoundError:
        return True
    if time.time() - seen.st_mtime < stale_after:
        return False
    directory = os.open(lock.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(directory, fcntl.LOCK_EX)
        try:
            now = os.stat(lock)
        except FileNotFoundError:
            return True
        if (now.st_ino, now.st_mtime_ns) != (seen.st_ino, seen.st_mtime_ns):
            return True  # another breaker replaced it; look again
        log.warning(
            "breaking stale lock %s (%.0f s old; stale after %.0f s)", lock, time.time() - now.st_mtime, stale_after
        )
        try:
            fs_seam.current().rmdir(lock)
        except FileNotFoundError:
            pass
        except OSError as err:
            if err.errno != errno.ENOTEMPTY:
                raise WriteFailed(
                    f"could not break the stale lock {lock.name}: {err.strerror or err}; nothing was written"
                ) from err
            shutil.rmtree(lock, ignore_errors=True)
        return True
    finally:
        fcntl.flock(directory, fcntl.LOCK_UN)
        os.close(directory)
