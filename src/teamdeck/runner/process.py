"""The processes of runs: started in their own process group (session), their output
written straight to files (so a run outlives a runner that crashed and is adopted by the
next), and stopped as a group: SIGTERM, a grace period, SIGKILL.

A process is known by its pid *and* its start time (read from /proc): a pid the kernel
reused for another program is never signalled as ours.

When a run ends, whatever its agent left behind ends too (:func:`end_leftovers`): the
rest of its process group (``cmd &``, ``nohup cmd &``) and every process that carries
the run's environment (``TEAMDECK_WORKSPACE`` and ``TEAMDECK_RUN_ID``), which is how a
process that left the group (``setsid``, a daemon's double fork) is still known as the
run's, wherever it was reparented. Only a process that both left the group and changed
those two variables escapes. The runner is no child subreaper (PR_SET_CHILD_SUBREAPER):
orphans reparented to it would have to be reaped by a process whose other children
(asyncio's run leaders, the autowork loop's commands) are waited for by others, and they
would still need the environment to say which run they belong to.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from teamdeck.runtime.spec import ENV_RUN_ID, ENV_WORKSPACE, Launch
from teamdeck.store.lock_owner import is_running, process_started
from teamdeck.store.paths import open_beneath

POLL_S = 0.1
"""How often an adopted process (not our child) is looked at to see whether it ended."""

KILL_WAIT_S = 5.0
"""How long a process SIGKILLed by :func:`end_leftovers` is waited for before it is given up."""


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
    """SIGTERM the run's process group, wait ``grace_s`` for its leader, then SIGKILL the
    group. Returns how it ended: ``gone`` (already), ``terminated`` or ``killed``. What is
    left once the leader is gone is :func:`end_leftovers`'s."""
    if not identity.signal_group(signal.SIGTERM):
        return "gone"
    if await wait_gone(identity, process, grace_s):
        return "terminated"  # the rest of its group got SIGTERM too: end_leftovers sees to it
    try:
        os.killpg(identity.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    await wait_gone(identity, process, None)
    return "killed"


def _processes() -> Iterator[tuple[int, int, Path]]:
    """Every live (not zombie) process but this one: its pid, its process group and the
    path of its environment."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] not in ("Z", "X"):
            yield int(entry.name), int(fields[2]), Path(entry.path, "environ")


def _run_marks(workspace: Path, run_id: str) -> set[bytes]:
    """What the environment of a run's processes holds: ``TEAMDECK_WORKSPACE`` and ``TEAMDECK_RUN_ID``."""
    return {os.fsencode(f"{ENV_WORKSPACE}={workspace}"), os.fsencode(f"{ENV_RUN_ID}={run_id}")}


def leftovers(pgid: int | None, workspace: Path, run_id: str) -> list[int]:
    """The live (not zombie) processes of a run whose leader is gone: the members of its
    process group ``pgid`` (an id the kernel does not give again while a member is left;
    None: a run whose pid was never recorded) and every process whose environment names
    the run (``TEAMDECK_WORKSPACE`` is ``workspace``, ``TEAMDECK_RUN_ID`` is ``run_id``).
    Never this process."""
    marks = _run_marks(workspace, run_id)
    return [pid for pid, group, environ in _processes() if group == pgid or _environment_has(environ, marks)]


def run_leader(workspace: Path, run_id: str) -> Identity | None:
    """The process a run started, found without its recorded pid (the runner was killed
    after starting it and before recording it): the earliest started of the processes
    that lead their own process group (as :func:`spawn` starts one) and whose environment
    names the run; None when there is none. A process the agent moved to a session of
    its own (``setsid``) also leads its group: it is taken only when it started first,
    which the agent itself did."""
    marks = _run_marks(workspace, run_id)
    found = [
        Identity(pid, process_started(pid))
        for pid, group, environ in _processes()
        if pid == group and _environment_has(environ, marks)
    ]
    return min(found, key=lambda identity: (identity.started or 0.0, identity.pid), default=None)


def _environment_has(environ: Path, marks: set[bytes]) -> bool:
    try:
        return marks <= set(environ.read_bytes().split(b"\0"))
    except OSError:
        return False  # another user's, or gone


async def end_leftovers(pgid: int | None, workspace: Path, run_id: str, grace_s: float) -> int:
    """End what a run left running once its leader is gone (:func:`leftovers`): SIGTERM,
    up to ``grace_s`` for them to go, SIGKILL to the rest, until none is left (a child one
    of them started meanwhile included). Returns how many there were. A process that may
    not be signalled (another user's) is left alone, and so is one that outlives SIGKILL
    by :data:`KILL_WAIT_S` (stuck in the kernel)."""
    ended: set[int] = set()
    refused: set[int] = set()
    deadline = time.monotonic() + grace_s
    while found := [pid for pid in leftovers(pgid, workspace, run_id) if pid not in refused]:
        now = time.monotonic()
        if now >= deadline + KILL_WAIT_S:
            break
        sig = signal.SIGTERM if now < deadline else signal.SIGKILL
        for pid in found:
            if (pid not in ended or sig == signal.SIGKILL) and not _signal(pid, sig):
                refused.add(pid)
        ended.update(found)
        await asyncio.sleep(POLL_S)
    return len(ended - refused)


def _signal(pid: int, sig: int) -> bool:
    """Send ``sig`` to ``pid``; False when it may not be (gone meanwhile counts as sent)."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
    except PermissionError:
        return False
    return True
