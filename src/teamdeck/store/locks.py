"""Locks for read-modify-write (R2): flock on a separate ``<file>.lock``.

``flock`` and not ``lockf``: a ``lockf`` lock vanishes when its holder closes *any*
descriptor of the file (C12). The holder writes its pid, host and start time into the
lock file so a waiter that times out can name it (F11). A holder killed with SIGKILL
releases the lock with its process (F10). Two threads of one process exclude each
other too: each takes the lock through its own open of the file.

Taken with ``fcntl.flock`` directly: the filelock package this used to go through
spent ~0.15 ms of CPU per lock on its own bookkeeping (fork and thread tracking),
a tenth of what the live view spends on an inbox change (it locks the record of
observed messages once per change).
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from teamdeck.errors import Busy, WriteFailed
from teamdeck.store.paths import open_beneath

LOCK_TIMEOUT_S = 5.0


def lock_path_for(path: Path) -> Path:
    """The lock file that guards ``path``."""
    return path.with_name(path.name + ".lock")


def _record_holder(fd: int) -> None:
    """Write who holds the lock over the lock file's content. Truncated only when the
    earlier holder's line was longer: truncating a file that has blocks costs a
    journal commit (2 ms here, and a tenth of the live view's CPU per inbox change
    when it was done on every lock), while a line of the same length, the usual case,
    simply overwrites the last one."""
    record = f"{os.getpid()} {os.uname().nodename} {time.time():.3f}\n".encode()
    os.pwrite(fd, record, 0)
    if os.fstat(fd).st_size > len(record):
        os.ftruncate(fd, len(record))


def describe_holder(lock_file: Path) -> str:
    """``"pid 4242 on host build-3 for 12 s"`` from a lock file, or ``"another process"``."""
    try:
        pid, host, since = lock_file.read_text().split()
        return f"pid {pid} on host {host} for {time.time() - float(since):.0f} s"
    except (OSError, ValueError):
        return "another process"


@contextmanager
def locked(path: Path, *, timeout: float | None = None, what: str | None = None) -> Iterator[None]:
    """Hold the exclusive lock guarding ``path`` for the duration of the block.

    Args:
        path: the file being read-modified-written (its directory must exist).
        timeout: seconds to wait before giving up (default :data:`LOCK_TIMEOUT_S`,
            read at call time so tests can shorten it).
        what: how to name the file in the message (defaults to its name).

    Raises:
        Busy: another live process held the lock for longer than ``timeout``.
        WriteFailed: the lock file could not be opened: a symbolic link (out of the
            workspace, or any link: a lock is never taken through one), a read-only disk, EACCES.
    """
    lock_file = lock_path_for(path)
    wait = LOCK_TIMEOUT_S if timeout is None else timeout
    try:
        fd = take_flock(lock_file, wait)
    except TimeoutError:
        raise Busy(f"{what or path.name} is busy: locked by {describe_holder(lock_file)}. Try again.") from None
    except OSError as err:
        why = "it is a symbolic link" if err.errno == errno.ELOOP else err.strerror or str(err)
        raise WriteFailed(f"could not lock {what or path.name}: {why} ({lock_file.name}); nothing was written") from err
    try:
        yield
    finally:
        release_flock(fd)


POLL_S = (0.001, 0.005, 0.01, 0.02, 0.05)
"""Waits between tries while another holder has the lock (then every 50 ms)."""


def take_flock(lock_file: Path, timeout: float, *, record: bool = True) -> int:
    """Open ``lock_file`` (created if missing, never through a symbolic link), take its
    exclusive flock within ``timeout`` seconds and (``record``) write the holder in it
    (not into a lock file another program owns: Claude Code's task-list ``.lock``).

    Returns:
        The descriptor holding the lock (unlock and close it to release).

    Raises:
        TimeoutError: another holder kept it for ``timeout`` seconds.
        OSError: the lock file could not be opened (ELOOP for a link, EROFS...).
    """
    fd = open_beneath(lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        deadline = time.monotonic() + timeout
        tries = 0
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"{lock_file} is locked") from None
                time.sleep(POLL_S[min(tries, len(POLL_S) - 1)])
                tries += 1
        if record:
            _record_holder(fd)
    except BaseException:
        os.close(fd)
        raise
    return fd


def release_flock(fd: int) -> None:
    """Release a lock :func:`take_flock` took (and close its descriptor)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
