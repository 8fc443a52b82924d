"""Waiting for a process to freeze itself with SIGSTOP (tests of stopped lock holders)."""

from __future__ import annotations

import time
from pathlib import Path

DEADLINE_S = 30.0


def process_state(pid: int) -> str:
    """The one-letter state of ``pid`` from /proc (``T``: stopped, ``Z``: exited)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2]


def wait_until_stopped(pid: int, timeout: float = DEADLINE_S) -> None:
    """Return once ``pid`` is stopped; fail if it exits or does not stop in time."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = process_state(pid)
        if state == "T":
            return
        assert state != "Z", f"process {pid} exited instead of stopping"
        time.sleep(0.01)
    raise AssertionError(f"process {pid} did not stop within {timeout} s")
