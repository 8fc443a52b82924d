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

A holder can be stopped (SIGSTOP, Ctrl-Z, a suspended laptop) while it holds the lock,
past the stale time: others then break the lock and write. So our holders, as Claude
Code's own writer does, refresh the lock's mtime while they hold it (a stopped process
refreshes nothing and loses the lock, which is what we want), name themselves in an
owner file beside the lock (see :class:`LockOwner`), and - through :meth:`HeldLock.unchanged`
- check just before replacing the file that they still hold the lock and that the file
is still what they read, starting over otherwise (:func:`rewrite_locked`). A lock whose
owner is a dead process on this host is broken at once instead of after the stale time.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import random
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from teamdeck.errors import Busy, WriteFailed
from teamdeck.store import fs as fs_seam
from teamdeck.store.atomic import Superseded
from teamdeck.store.lock_owner import LockOwner, read_owner, refresher, remove_owner, write_owner

T = TypeVar("T")

log = logging.getLogger(__name__)

LOCK_STALE_S = 10.0
"""Claude Code's rule: a lock directory older than this was left by a dead writer."""

LOCK_GRACE_S = 2.0
"""How long past the stale time a waiter keeps trying before it reports Busy."""

REWRITE_ATTEMPTS = 20
"""How often :func:`rewrite_locked` starts over on a file that keeps changing under it."""

_FIRST_DELAY_S = 0.001
_MAX_DELAY_S = 0.02


def lock_dir_for(path: Path) -> Path:
    """The lock directory that guards ``path``: ``<name>.lock`` beside it."""
    return path.with_name(path.name + ".lock")


class HeldLock:
    """A lock directory this process took: its path and identity (inode), to tell
    whether it is still ours (not broken as stale and taken by another writer)."""

    def __init__(self, lock: Path, inode: int) -> None:
        self.lock = lock
        self.inode = inode

    def still_ours(self) -> bool:
        """Whether the lock directory is still the one we created."""
        try:
            return os.stat(self.lock).st_ino == self.inode
        except OSError:
            return False

    def unchanged(self, path: Path, seen: bytes | None) -> Callable[[], bool]:
        """A check for :func:`~teamdeck.store.atomic.atomic_replace`: the lock is still
        ours and ``path`` still holds ``seen`` (None: it did not exist)."""

        def check() -> bool:
            return self.still_ours() and _bytes_of(path) == seen

        return check


def _bytes_of(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


@contextmanager
def dir_locked(
    path: Path, *, stale_after: float = LOCK_STALE_S, timeout: float | None = None, what: str | None = None
) -> Iterator[HeldLock]:
    """Hold Claude Code's mkdir lock for ``path`` during the block.

    While held, the lock's mtime is refreshed every third of ``stale_after`` and its
    owner is recorded beside it (see the module).

    Args:
        path: the file to be read-modified-written (its directory must exist).
        stale_after: seconds after which an existing lock directory is broken
            (injectable so tests need not wait 10 s).
        timeout: seconds to keep trying; by default a little longer than
            ``stale_after``, so a lock left by a dead writer is always broken first.
        what: how to name the file in messages (defaults to its name).

    Yields:
        The :class:`HeldLock`, to check before replacing that it is still ours.

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
                owner = read_owner(lock)
                holder = owner.describe() if owner is not None else "another writer"
                raise Busy(
                    f"{what or path.name} is busy: lock {lock.name} held by {holder} for {_age(lock):.0f} s. Try again."
                ) from None
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, _MAX_DELAY_S)
        except OSError as err:
            raise WriteFailed(
                f"could not lock {what or path.name}: {err.strerror or err} creating {lock.name}; nothing was written"
            ) from err
    held = HeldLock(lock, os.stat(lock).st_ino)
    write_owner(lock, held.inode)
    refresher.add(lock, held.inode, stale_after / 3)
    try:
        yield held
    finally:
        refresher.discard(lock)
        if held.still_ours():
            remove_owner(lock, held.inode)
            try:
                fs.rmdir(lock)
            except FileNotFoundError:
                pass  # broken as stale by someone else meanwhile, or its directory was removed


def rewrite_locked(
    path: Path,
    attempt: Callable[[HeldLock], T],
    *,
    stale_after: float = LOCK_STALE_S,
    what: str | None = None,
    attempts: int = REWRITE_ATTEMPTS,
) -> T:
    """Run ``attempt`` under the lock of ``path``, again from the start (lock, read,
    change) each time it raises :class:`Superseded` because the file changed or the
    lock was lost between its read and its replace (C16: a writer
    stopped past the stale time must never write an old array back).

    Raises:
        Busy: the lock stayed held, or the file changed under every attempt.
        WriteFailed: the disk refused.
    """
    for _ in range(attempts):
        with dir_locked(path, stale_after=stale_after, what=what) as held:
            try:
                return attempt(held)
            except Superseded as why:
                log.warning("%s changed while we rewrote it (%s); reading it again", path, why)
    raise Busy(
        f"{what or path.name} kept changing while we wrote it ({attempts} attempts); nothing was written. Try again."
    )


def _age(lock: Path) -> float:
    try:
        return max(0.0, time.time() - lock.stat().st_mtime)
    except OSError:
        return 0.0


def _owner_dead(lock: Path, inode: int) -> bool:
    """Whether the recorded owner of this very lock is a process of this host that is gone."""
    owner = read_owner(lock)
    return owner is not None and owner.lock == inode and owner.alive() is False


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
    if time.time() - seen.st_mtime < stale_after and not _owner_dead(lock, seen.st_ino):
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
            "breaking stale lock %s (%.0f s old; stale after %.0f s; owner: %s)",
            lock,
            time.time() - now.st_mtime,
            stale_after,
            (read_owner(lock) or LockOwner.unknown()).describe(),
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
