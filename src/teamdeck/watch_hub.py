"""Waiting for files to change without a thread per waiter: one watcher, many waiters (C18).

An MCP agent's ``wait_for_agent`` or ``get_decision(wait_s=...)`` may wait an hour,
and a team may run a hundred of them. Each used to run its own watcher on a worker
thread of the shared pool, so 150 waits left no thread for ``list_agents`` (25 s
instead of 0.01 s), and a wait could only notice its timeout when its watcher's
thread came back (5 s for a 2 s timeout).

Here one daemon thread per process (:class:`Hub`) watches the union of every waiter's
paths and wakes the waiters whose paths saw a change; a waiter sleeps on an asyncio
event, so it holds no thread and its timeout is exact. Its ``check`` (which reads
files) runs on a worker thread only for the moment it takes.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio
import watchfiles

from teamdeck.watch import DEBOUNCE_MS, POLL_DELAY_MS, STEP_MS, needs_polling

log = logging.getLogger(__name__)

T = TypeVar("T")

RECHECK_S = 5.0
"""How often a waiter looks again without a change: it covers a change made while the
watch was being set up, and filesystems that report nothing (it is not a busy loop:
one check every few seconds, asleep in between)."""


class Hub:
    """The one watcher of this process (see the module)."""

    def __init__(self) -> None:
        self._guard = threading.Condition()
        self._waiters: dict[int, tuple[frozenset[Path], Callable[[], None]]] = {}
        self._ids = itertools.count()
        self._restart = threading.Event()
        self._watching: list[Path] = []
        self._thread: threading.Thread | None = None

    def register(self, paths: list[Path], wake: Callable[[], None]) -> int:
        """Call ``wake()`` (from the hub's thread) after each change under ``paths``."""
        with self._guard:
            token = next(self._ids)
            self._waiters[token] = (frozenset(path.resolve() for path in paths), wake)
            self._changed_paths()
            self._guard.notify()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="teamdeck-watch-hub", daemon=True)
                self._thread.start()
        return token

    def unregister(self, token: int) -> None:
        with self._guard:
            if self._waiters.pop(token, None) is not None:
                self._changed_paths()

    def _changed_paths(self) -> None:
        """Restart the watch if the paths to watch changed (under the guard)."""
        if self._union() != self._watching:
            self._restart.set()

    def _union(self) -> list[Path]:
        return _outermost({path for paths, _wake in self._waiters.values() for path in paths})

    @property
    def waiters(self) -> int:
        return len(self._waiters)

    def _run(self) -> None:
        while True:
            with self._guard:
                while not self._waiters:
                    self._guard.wait()
                self._restart.clear()
                self._watching = self._union()
            existing = [path for path in self._watching if path.exists()]
            if not existing:
                self._restart.wait(RECHECK_S)
                continue
            try:
                for changes in watchfiles.watch(
                    *existing,
                    watch_filter=None,
                    debounce=DEBOUNCE_MS,
                    step=STEP_MS,
                    stop_event=self._restart,
                    force_polling=any(needs_polling(path) for path in existing)
                    or bool(os.environ.get("WATCHFILES_FORCE_POLLING")),
                    poll_delay_ms=POLL_DELAY_MS,
                    ignore_permission_denied=True,
                    raise_interrupt=False,
                ):
                    self._wake({Path(raw) for _change, raw in changes})
            except (OSError, RuntimeError) as err:  # a watched directory went away: watch the rest again
                log.debug("watch hub restarts: %s", err)
                self._restart.wait(0.1)

    def _wake(self, changed: set[Path]) -> None:
        with self._guard:
            waiters = list(self._waiters.values())
        for paths, wake in waiters:
            if any(path == root or root in path.parents for path in changed for root in paths):
                wake()


def _outermost(paths: set[Path]) -> list[Path]:
    """``paths`` without those inside another one (a recursive watch covers them)."""
    return sorted(path for path in paths if not any(other in path.parents for other in paths))


hub = Hub()


async def wait_until(
    paths: list[Path], check: Callable[[], T | None], timeout_s: float, *, recheck_s: float = RECHECK_S
) -> T | None:
    """Wait, holding no thread, until ``check()`` returns something or ``timeout_s`` passes.

    ``check`` runs (on a worker thread: it reads files) once at once, then after every
    batch of changes under ``paths`` and every ``recheck_s`` without one. Runs on asyncio.

    Args:
        paths: existing directories or files to watch (recursively); missing ones are
            left out (an empty list: only the rechecks wake it).
        check: returns None while the awaited thing has not happened.
        timeout_s: the longest to wait (0: check once).

    Returns:
        What ``check`` returned, or None on timeout.
    """
    found = await anyio.to_thread.run_sync(check)
    if found is not None or timeout_s <= 0:
        return found
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()

    def wake() -> None:
        loop.call_soon_threadsafe(changed.set)

    token = hub.register([path for path in paths if path.exists()], wake)
    try:
        with anyio.move_on_after(timeout_s):
            while True:
                with anyio.move_on_after(recheck_s):
                    await changed.wait()
                changed.clear()
                found = await anyio.to_thread.run_sync(check)
                if found is not None:
                    return found
    finally:
        hub.unregister(token)
    return None
