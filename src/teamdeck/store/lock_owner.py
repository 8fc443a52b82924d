"""Who holds a mkdir lock, and keeping a held lock fresh (store/dirlock.py).

Claude Code's lock is an empty directory that its writers ``rmdir`` when they break it
as stale, so nothing may be put inside it. The owner is recorded beside it instead, in
``.<name>.lock.owner`` (``teams/alpha/inboxes/.bob.json.lock.owner``), one JSON line::

    {"pid": 4242, "host": "build-3", "started": 1764168000.12, "since": 1764169000.5, "lock": 1234567}

``started`` is the holder process's start time (so a reused pid is not taken for it),
``since`` when it took the lock, ``lock`` the inode of the lock directory it took: an
owner file whose ``lock`` is not the current lock directory's inode describes an older
lock (its holder crashed) and is ignored.

While a lock is held, one thread refreshes the mtime of every lock the process holds,
as Claude Code's writer does, so a slow but live holder is never taken for a dead one.
"""

from __future__ import annotations

import json
import os
import threading
import time
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple


def _host() -> str:
    """This machine's host name (``socket.gethostname()`` on POSIX, without importing
    socket: every ``send`` takes a lock)."""
    return os.uname().nodename


OWNER_SUFFIX = ".owner"


def owner_path(lock: Path) -> Path:
    """Where the owner of the lock directory ``lock`` is recorded."""
    return lock.with_name(f".{lock.name}{OWNER_SUFFIX}")


@cache
def _boot_time() -> float | None:
    try:
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("btime "):
                return float(line.split()[1])
    except OSError:
        pass
    return None


def process_started(pid: int) -> float | None:
    """When process ``pid`` started (epoch seconds), or None where that cannot be read."""
    boot = _boot_time()
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    if boot is None:
        return None
    # The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    fields = stat[stat.rindex(")") + 2 :].split()
    return round(boot + int(fields[19]) / os.sysconf("SC_CLK_TCK"), 2)


def is_running(pid: int, started: float | None) -> bool:
    """Whether process ``pid`` exists and is the one that started at ``started`` (epoch
    s, from :func:`process_started`; None: not checked): a pid the kernel gave to a later
    process is not it. A zombie (ended, not yet reaped) does not run."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, under another user
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc: existing is all that can be told
    if stat[stat.rindex(")") + 2 :].startswith("Z"):
        return False
    now = process_started(pid)
    return started is None or now is None or abs(now - started) < 0.05


class LockOwner(NamedTuple):
    """The recorded holder of a lock (see the module); a NamedTuple, not a dataclass:
    importing ``dataclasses`` would cost every ``send`` ~8 ms."""

    pid: int | None
    host: str
    started: float | None
    since: float | None
    lock: int | None

    @classmethod
    def unknown(cls) -> LockOwner:
        return cls(None, "", None, None, None)

    @classmethod
    def me(cls, inode: int) -> LockOwner:
        pid = os.getpid()
        return cls(pid, _host(), process_started(pid), round(time.time(), 3), inode)

    def alive(self) -> bool | None:
        """Whether the holder still runs: None when that cannot be told (another host,
        no pid); False when its pid is gone or belongs to a process started later."""
        if self.pid is None or self.host != _host():
            return None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass  # it exists, under another user
        started = process_started(self.pid)
        if self.started is not None and started is not None and started != self.started:
            return False
        return True

    def describe(self) -> str:
        """``pid 4242 on host build-3 since 10:42:03`` (or ``another writer``)."""
        if self.pid is None:
            return "another writer"
        since = f" since {datetime.fromtimestamp(self.since).strftime('%H:%M:%S')}" if self.since else ""
        return f"pid {self.pid} on host {self.host}{since}"

    def to_json(self) -> dict[str, Any]:
        return {"pid": self.pid, "host": self.host, "started": self.started, "since": self.since, "lock": self.lock}


def read_owner(lock: Path) -> LockOwner | None:
    """The owner of the lock directory ``lock`` as it is now, or None: no lock, no
    owner file, an unreadable one, or one left by an earlier lock of the same name."""
    try:
        inode = os.stat(lock).st_ino
        raw = json.loads(owner_path(lock).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("lock") != inode:
        return None
    pid, host, started, since = raw.get("pid"), raw.get("host"), raw.get("started"), raw.get("since")
    return LockOwner(
        pid if isinstance(pid, int) else None,
        host if isinstance(host, str) else "",
        float(started) if isinstance(started, int | float) else None,
        float(since) if isinstance(since, int | float) else None,
        inode,
    )


def write_owner(lock: Path, inode: int) -> None:
    """Record this process as the owner of ``lock`` (best effort: the owner file only
    names the holder; the lock is the directory)."""
    line = (json.dumps(LockOwner.me(inode).to_json()) + "\n").encode()
    try:
        fd = os.open(owner_path(lock), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    except OSError:
        return
    try:
        os.write(fd, line)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_owner(lock: Path, inode: int) -> None:
    """Remove the owner file of ``lock`` if it still names this process's lock ``inode``."""
    path = owner_path(lock)
    try:
        raw = json.loads(path.read_bytes())
        if isinstance(raw, dict) and raw.get("lock") == inode and raw.get("pid") == os.getpid():
            os.unlink(path)
    except (OSError, ValueError):
        pass


class Refresher:
    """A daemon thread that touches every held lock directory's mtime often enough that
    none is ever taken for stale while its holder runs. It runs only while this process
    holds a lock: a process that holds none has no extra thread (tui/first_read.py forks
    only a single-threaded process)."""

    def __init__(self) -> None:
        self._held: dict[Path, tuple[int, float, float]] = {}
        self._guard = threading.Lock()
        self._wake = threading.Condition(self._guard)
        self._thread: threading.Thread | None = None

    def add(self, lock: Path, inode: int, every: float) -> None:
        """Refresh ``lock`` (while it is still the directory ``inode``) every ``every`` seconds."""
        with self._guard:
            self._held[lock] = (inode, every, time.monotonic() + every)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="teamdeck-lock-refresh", daemon=True)
                self._thread.start()
            self._wake.notify()

    def discard(self, lock: Path) -> None:
        """Stop refreshing ``lock``; the last one released stops the thread (and waits for it)."""
        with self._guard:
            self._held.pop(lock, None)
            thread = self._thread if not self._held else None
            if thread is not None:
                self._thread = None
                self._wake.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _run(self) -> None:
        with self._guard:
            while self._held and self._thread is threading.current_thread():
                now = time.monotonic()
                for lock, (inode, every, due) in list(self._held.items()):
                    if due <= now:
                        _touch(lock, inode)
                        self._held[lock] = (inode, every, now + every)
                self._wake.wait(timeout=max(0.0, min(due for _i, _e, due in self._held.values()) - now))


def _touch(lock: Path, inode: int) -> None:
    try:
        if os.stat(lock).st_ino == inode:
            os.utime(lock)
    except OSError:
        pass  # broken by another writer: it is no longer ours to refresh


refresher = Refresher()
