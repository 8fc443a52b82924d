"""Running the roles of worker.py as separate processes, with deadlines (no sleeps)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

WORKER = Path(__file__).with_name("worker.py")
DEADLINE_S = 30.0


def spawn(role: str, *args: object, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """Start ``python worker.py ROLE ARGS`` with pipes on stdin/stdout/stderr."""
    return subprocess.Popen(
        [sys.executable, str(WORKER), role, *map(str, args)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def expect_line(proc: subprocess.Popen[str], prefix: str, timeout: float = DEADLINE_S) -> str:
    """The next stdout line of ``proc``, which must start with ``prefix``."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    if not ready:
        proc.kill()
        raise AssertionError(f"{proc.args[2:]} printed nothing within {timeout} s")
    line = proc.stdout.readline().strip()
    if not line.startswith(prefix):
        proc.kill()
        _, err = proc.communicate(timeout=timeout)
        raise AssertionError(f"{proc.args[2:]} printed {line!r}, expected {prefix!r}; stderr:\n{err}")
    return line


def release(procs: list[subprocess.Popen[str]]) -> None:
    """Wait until every process said ``ready``, then let them all go at once."""
    for proc in procs:
        expect_line(proc, "ready")
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()


def finish(proc: subprocess.Popen[str], timeout: float = DEADLINE_S) -> str:
    """Close stdin, wait for a clean exit, return the rest of stdout."""
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"{proc.args[2:]} exited {proc.returncode}:\n{err}"
    return out
