"""The one filesystem seam (docs/reliability.md R12): tests inject failures and crash points here.

Every write teamdeck makes goes through :data:`fs`, an :class:`OsFs` by default. Tests
swap in a subclass that raises ``ENOSPC``/``EIO``/``EROFS``/``EACCES``, returns short
writes, or stops at a named crash point, the way SQLite swaps in a failing VFS.

Crash points: when the environment variable ``TEAMDECK_CRASH_AT`` names a point that
the running code reaches (e.g. ``task.after_tmp_fsync``), the process kills itself with
SIGKILL there, so crash tests can run a writer in a subprocess and inspect what is left.
"""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

CRASH_ENV = "TEAMDECK_CRASH_AT"
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR


class Written:
    """The paths one call changed, as the seam saw them (:func:`recording_writes`):
    files replaced, appended to, linked, created or removed, and directories made or
    removed; a temp file renamed or linked into place counts as its target, and a
    lock directory made and removed again is left out."""

    def __init__(self) -> None:
        self._changed: dict[Path, None] = {}
        self._transient: set[Path] = set()
        self._made_dirs: set[Path] = set()

    def note(self, path: str | os.PathLike[str]) -> None:
        self._changed[Path(path)] = None

    def moved(self, src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        self._transient.add(Path(src))
        self.note(dst)

    def made_dir(self, path: str | os.PathLike[str]) -> None:
        self._made_dirs.add(Path(path))
        self.note(path)

    def removed_dir(self, path: str | os.PathLike[str]) -> None:
        if Path(path) in self._made_dirs:
            self._transient.add(Path(path))
        else:
            self.note(path)

    @property
    def paths(self) -> frozenset[Path]:
        return frozenset(path for path in self._changed if path not in self._transient)


_recording: ContextVar[Written | None] = ContextVar("teamdeck_written", default=None)


def _note(path: str | os.PathLike[str]) -> None:
    written = _recording.get()
    if written is not None:
        written.note(path)


class OsFs:
    """Thin wrappers over the ``os`` calls the writers use; override to inject faults."""

    def open(self, path: str | os.PathLike[str], flags: int, mode: int = 0o644) -> int:
        fd = os.open(path, flags, mode)
        if flags & _WRITE_FLAGS:
            _note(path)
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
        os.replace(src, dst)
        if (written := _recording.get()) is not None:
            written.moved(src, dst)

    def unlink(self, path: str | os.PathLike[str]) -> None:
        os.unlink(path)
        _note(path)

    def link(self, src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        os.link(src, dst)
        if (written := _recording.get()) is not None:
            written.moved(src, dst)

    def ftruncate(self, fd: int, length: int) -> None:
        os.ftruncate(fd, length)

    def mkdir(self, path: str | os.PathLike[str], mode: int = 0o755) -> None:
        os.mkdir(path, mode)
        if (written := _recording.get()) is not None:
            written.made_dir(path)

    def rmdir(self, path: str | os.PathLike[str]) -> None:
        os.rmdir(path)
        if (written := _recording.get()) is not None:
            written.removed_dir(path)

    def crash_point(self, name: str) -> None:
        """Die here (SIGKILL) if ``$TEAMDECK_CRASH_AT`` names this point."""
        if os.environ.get(CRASH_ENV) == name:
            os.kill(os.getpid(), signal.SIGKILL)


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
def recording_writes() -> Iterator[Written]:
    """Record every path the seam changes inside the ``with`` block (this thread or
    task only): a front refreshes exactly what a protocol call wrote."""
    written = Written()
    token = _recording.set(written)
    try:
        yield written
    finally:
        _recording.reset(token)
