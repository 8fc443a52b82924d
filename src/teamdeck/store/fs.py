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

CRASH_ENV = "TEAMDECK_CRASH_AT"


class OsFs:
    """Thin wrappers over the ``os`` calls the writers use; override to inject faults."""

    def open(self, path: str | os.PathLike[str], flags: int, mode: int = 0o644) -> int:
        return os.open(path, flags, mode)

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

    def unlink(self, path: str | os.PathLike[str]) -> None:
        os.unlink(path)

    def link(self, src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        os.link(src, dst)

    def ftruncate(self, fd: int, length: int) -> None:
        os.ftruncate(fd, length)

    def mkdir(self, path: str | os.PathLike[str], mode: int = 0o755) -> None:
        os.mkdir(path, mode)

    def rmdir(self, path: str | os.PathLike[str]) -> None:
        os.rmdir(path)

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
