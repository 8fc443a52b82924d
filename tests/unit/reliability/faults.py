"""One reusable failing filesystem for the fault tests (docs/reliability.md R12).

``FaultyFs`` is the production :class:`~teamdeck.store.fs.OsFs` with chosen operations
failing, the way SQLite's crash tests swap in a failing VFS::

    with fs.installed(FaultyFs(Fault("write", errno.ENOSPC, name="events.jsonl"))) as faulty:
        ...
    assert faulty.fired  # the fault really happened: the test cannot pass vacuously

Operations are named after the seam's methods: ``open``, ``write``, ``fsync``,
``fsync_dir``, ``replace``, ``unlink``, ``ftruncate``, ``mkdir``, ``rmdir``. A fault
matches by the file's name (glob); for descriptor calls the name is read back from
``/proc/self/fd`` (Linux, like CI).
"""

from __future__ import annotations

import errno as errno_codes
import fnmatch
import os
from dataclasses import dataclass

from teamdeck.store.fs import OsFs


@dataclass
class Fault:
    """One injected failure.

    Attributes:
        op: the seam method that fails.
        errno: the error raised (ignored when ``short``).
        name: glob on the file's base name (``*`` matches all).
        short: for ``write``: write only half of the data and return that count.
        times: how many times it fires (None: every time).
    """

    op: str
    errno: int = errno_codes.ENOSPC
    name: str = "*"
    short: bool = False
    times: int | None = None
    fired: int = 0


class FaultyFs(OsFs):
    """An :class:`OsFs` whose matching operations fail as their :class:`Fault` says.

    Attributes:
        faults: the failures to inject, first match wins.
        calls: every (op, file name) the seam saw, for asserting what was attempted.
    """

    def __init__(self, *faults: Fault) -> None:
        self.faults = list(faults)
        self.calls: list[tuple[str, str]] = []

    @property
    def fired(self) -> int:
        """How many injected failures happened in total."""
        return sum(fault.fired for fault in self.faults)

    # --- matching -------------------------------------------------------------
    def _fault_for(self, op: str, name: str) -> Fault | None:
        self.calls.append((op, name))
        for fault in self.faults:
            if (
                fault.op == op
                and fnmatch.fnmatch(name, fault.name)
                and (fault.times is None or fault.fired < fault.times)
            ):
                fault.fired += 1
                return fault
        return None

    def _check(self, op: str, name: str) -> None:
        fault = self._fault_for(op, name)
        if fault is not None:
            raise OSError(fault.errno, os.strerror(fault.errno), name)

    @staticmethod
    def _fd_name(fd: int) -> str:
        try:
            return os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            return ""

    # --- the seam -------------------------------------------------------------
    def open(self, path, flags, mode=0o644):
        self._check("open", os.path.basename(path))
        return super().open(path, flags, mode)

    def write(self, fd, data):
        fault = self._fault_for("write", self._fd_name(fd))
        if fault is None:
            return super().write(fd, data)
        if fault.short:
            return os.write(fd, bytes(data[: max(1, len(data) // 2)]))
        raise OSError(fault.errno, os.strerror(fault.errno))

    def fsync(self, fd):
        self._check("fsync", self._fd_name(fd))
        super().fsync(fd)

    def fsync_dir(self, fd):
        self._check("fsync_dir", self._fd_name(fd))
        super().fsync_dir(fd)

    def replace(self, src, dst):
        self._check("replace", os.path.basename(dst))
        super().replace(src, dst)

    def unlink(self, path):
        self._check("unlink", os.path.basename(path))
        super().unlink(path)

    def ftruncate(self, fd, length):
        self._check("ftruncate", self._fd_name(fd))
        super().ftruncate(fd, length)

    def mkdir(self, path, mode=0o755):
        self._check("mkdir", os.path.basename(path))
        super().mkdir(path, mode)

    def rmdir(self, path):
        self._check("rmdir", os.path.basename(path))
        super().rmdir(path)
