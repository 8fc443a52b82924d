"""The one filesystem seam (docs/reliability.md R12): tests inject failures and crash points here.

Every write teamdeck makes goes through :data:`fs`, an :class:`OsFs` by default. Tests
swap in a subclass that raises ``ENOSPC``/``EIO``/``EROFS``/``EACCES``, returns short
writes, or stops at a named crash point, the way SQLite swaps in a failing VFS.

Crash points: when the environment variable ``TEAMDECK_CRASH_AT`` names a point that
the running code reaches (e.g. ``task.after_tmp_fsync``), the process kills itself with
SIGKILL there, so crash tests can run a writer in a subprocess and inspect what is left;
``NAME@N`` (e.g. ``issue.after_replace@3``) dies at the N-th pass of the point instead of
the first, so a test reaches every pass of a point an action passes several times.
``TEAMDECK_STOP_AT`` does the same with SIGSTOP, the first time the point is reached:
the writer freezes there (as under Ctrl-Z or a suspended laptop) until the test sends
SIGCONT.

Every path the seam is given is reached by walking from the workspace root with
``O_NOFOLLOW`` (:func:`teamdeck.store.paths.open_beneath`, :func:`~teamdeck.store.paths.parent_beneath`),
so no write follows a symbolic link out of the workspace, even one swapped in while it
runs (S10, S16: it fails with :class:`~teamdeck.store.paths.EscapesWorkspace`, an
``OSError``, like any refused write).
"""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from teamdeck.store.paths import open_beneath, parent_beneath

CRASH_ENV = "TEAMDECK_CRASH_AT"
STOP_ENV = "TEAMDECK_STOP_AT"
_stopped: set[str] = set()
_passes: dict[str, int] = {}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR


Observer = Callable[[str, "str | os.PathLike[str]"], None]
"""Told each change the seam makes: ``("write", path)``, ``("moved", temp)`` (renamed
or linked into place), ``("mkdir", path)``, ``("rmdir", path)``."""
_observer: ContextVar[Observer | None] = ContextVar("teamdeck_fs_observer", default=None)


def _seen(change: str, path: str | os.PathLike[str]) -> None:
    observer = _observer.get()
    if observer is not None:
        observer(change, path)


class OsFs:
    """Thin wrappers over the ``os`` calls the writers use; override to inject faults."""

    def open(self, path: str | os.PathLike[str], flags: int, mode: int = 0o644) -> int:
        fd = open_beneath(path, flags, mode)
        if flags & _WRITE_FLAGS:
            _seen("write", path)
        return fd

    def write(self, fd: int, data: bytes | memoryview) -> int:
        return os.write(fd, data)

    def write_all(self, fd: int, data: bytes | memoryview) -> None:
        """Write all of ``data``, looping over partial writes (not for log appends:
        those must be one ``write``, see store/jsonl.py).

        Raises:
            OSError: a write failed or made no progress (EIO).
        """
        view = memoryview(data)
        while view:
            written = self.write(fd, view)
            if written <= 0:
                raise OSError(errno.EIO, "write returned no progress")
            view = view[written:]

    def fsync(self, fd: int) -> None:
        os.fsync(fd)

    def fsync_dir(self, fd: int) -> None:
        os.fsync(fd)

    def close(self, fd: int) -> None:
        os.close(fd)

    def replace(self, src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        with parent_beneath(dst) as (fd, name):  # src: our temp file beside dst
            os.replace(src, name, dst_dir_fd=fd)
        _seen("moved", src)
        _seen("write", dst)

    def unlink(self, path: str | os.PathLike[str]) -> None:
        with parent_beneath(path) as (fd, name):
            os.unlink(name, dir_fd=fd)
        _seen("write", path)

    def link(self, src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        with parent_beneath(dst) as (fd, name):  # src: our temp file beside dst
            os.link(src, name, dst_dir_fd=fd)
        _seen("moved", src)
        _seen("write", dst)

    def ftruncate(self, fd: int, length: int) -> None:
        os.ftruncate(fd, length)

    def mkdir(self, path: str | os.PathLike[str], mode: int = 0o755) -> None:
        with parent_beneath(path) as (fd, name):
            os.mkdir(name, mode, dir_fd=fd)
        _seen("mkdir", path)

    def rmdir(self, path: str | os.PathLike[str]) -> None:
        with parent_beneath(path) as (fd, name):
            os.rmdir(name, dir_fd=fd)
        _seen("rmdir", path)

    def crash_point(self, name: str) -> None:
        """Die here (SIGKILL) if ``$TEAMDECK_CRASH_AT`` names this point (or this pass of
        it, ``NAME@N``); freeze here (SIGSTOP) if ``$TEAMDECK_STOP_AT`` does."""
        crash_at = os.environ.get(CRASH_ENV)
        if crash_at == name:
            os.kill(os.getpid(), signal.SIGKILL)
        if crash_at and crash_at.startswith(f"{name}@"):
            _passes[name] = _passes.get(name, 0) + 1
            if crash_at == f"{name}@{_passes[name]}":
                os.kill(os.getpid(), signal.SIGKILL)
        if os.environ.get(STOP_ENV) == name and name not in _stopped:
            _stopped.add(name)  # once: after SIGCONT the writer goes on (and may pass here again)
            os.kill(os.getpid(), signal.SIGSTOP)


fs: OsFs = OsFs()


@contextmanager
def installed(replacement: OsFs) -> Iterator[OsFs]:
    """Use ``replacement`` as the seam inside the ``with`` block (tests)."""
    global fs
    previous, fs = fs, replacement
    try:
        yield replacement
    finally:
        fs = previous


def current() -> OsFs:
    """The seam in force now (read it at call time so :func:`installed` takes effect)."""
    return fs


@contextmanager
def observing(observer: Observer) -> Iterator[None]:
    """Tell ``observer`` every change the seam makes inside the ``with`` block, in this
    thread or task only (protocol/common/written.py records what a call wrote)."""
    token = _observer.set(observer)
    try:
        yield
    finally:
        _observer.reset(token)
