"""The processes of runs: started in their own process group (session), their output
written straight to files (so a run outlives a runner that crashed and is adopted by the
next), and stopped as a group: SIGTERM, a grace period, SIGKILL.

A process is known by its pid *and* its start time (read from /proc): a pid the kernel
reused for another program is never signalled as ours.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from teamdeck.runtime.spec import Launch
from teamdeck.store.lock_owner import is_running
from teamdeck.store.paths import open_beneath

POLL_S = 0.1
"""How often an adopted process (not our child) is looked at to see whether it ended."""


@dataclass(frozen=True)
class Identity:
    """A process as recorded: its pid and when it started (None: not readable)."""

    pid: int
    started: float | None

    def alive(self) -> bool:
        """Whether this very process still runs (a reused pid is not it, nor a zombie)."""
        return is_running(self.pid, self.started)

    def signal_group(self, sig: int) -> bool:
        """Send ``sig`` to the process's group (its own session); False when it is gone."""
        if not self.alive():
            return False
        try:
            os.killpg(self.pid, sig)
        except ProcessLookupError:
            return False
        return True


async def spawn(launch: Launch, stdout: Path, stderr: Path) -> asyncio.subprocess.Process:
    """Start ``launch`` in a new session (its own process group), stdout and stderr
    appended to the two files, ``launch.stdin`` written and closed.

    Raises:
        OSError: the program could not be started (not found, not executable...).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    out = open_beneath(stdout, flags, 0o644)
    try:
        err = open_beneath(stderr, flags, 0o644)
        try:
            process = await asyncio.create_subprocess_exec(
                *launch.argv,
                cwd=launch.cwd,
                env={**os.environ, **launch.env},
                stdin=asyncio.subprocess.PIPE if launch.stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        finally:
            os.close(err)
    finally:
        os.close(out)
    if launch.stdin is not None and process.stdin is not None:
        try:
            process.stdin.write(launch.stdin)
            await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # it exited without reading: its exit status says why
        process.stdin.close()
    return process


async def wait_gone(identity: Identity, process: asyncio.subprocess.Process | None, timeout: float | None) -> bool:
    """Wait until the process ended (our child: its exit; adopted: polled); False when
    ``timeout`` passed first."""
    if process is not None:
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            return False
        return True
    deadline = None if timeout is None else time.monotonic() + timeout
    while identity.alive():
        if deadline is not None and time.monotonic() >= deadline:
            return False
        await asyncio.sleep(POLL_S)
    return True


async def stop_group(identity: Identity, process: asyncio.subprocess.Process | None, grace_s: float) -> str:
    """SIGTERM the run's process group, wait ``grace_s``, then SIGKILL it. Returns how it
    ended: ``gone`` (already), ``terminated`` or ``killed``."""
    if not identity.signal_group(signal.SIGTERM):
        return "gone"
    if await wait_gone(identity, process, grace_s):
        _kill_rest(identity)
        return "terminated"
    try:
        os.killpg(identity.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    await wait_gone(identity, process, None)
    return "killed"


def _kill_rest(identity: Identity) -> None:
    """After the leader left on SIGTERM, what else of its group is still there goes too."""
    try:
        os.killpg(identity.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
