"""What ``teamdeck run`` runs, for any host: the :class:`~teamdeck.runner.supervisor.Runner`
on an event loop of its own and, beside it (unless ``once``), the autowork loop that
advances plans, verifies tasks on review and catches stalls, and whatever other loops
the host brings (``teamdeck run`` brings the forge catch-up when Gitea's API is
configured in its environment).

``teamdeck run`` hosts it on its main thread (Ctrl-C and SIGTERM end it); ``teamdeck
demo`` hosts the very same thing on a thread behind the TUI and ends it with
:meth:`RunnerHost.stop`, so what the demo shows is what a user's runner does. The demo
brings no forge catch-up: a copy of the demo must never reach a real Gitea.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from teamdeck.runner.autowork_loop import AutoworkLoop
from teamdeck.runner.supervisor import Runner
from teamdeck.store.workspace import Workspace


class Beside(Protocol):
    """A loop that runs beside the runner on a thread of its own."""

    def start(self) -> None: ...

    def stop(self) -> None: ...


class RunnerHost:
    """The runner of ``ws`` and its autowork loop (see the module).

    Args:
        ws: the workspace (its clock stamps every run record).
        say: where the runner's one-line accounts go.
        team, once: as ``teamdeck run --team --once``.
        signals: SIGINT and SIGTERM end it (only when :meth:`run` is on the main thread).
        beside: more loops started with the runner and stopped after it (not with ``once``).
    """

    def __init__(
        self,
        ws: Workspace,
        say: Callable[[str], None],
        *,
        team: str | None = None,
        once: bool = False,
        signals: bool = True,
        beside: Sequence[Beside] = (),
    ) -> None:
        self.runner = Runner(ws, team=team, once=once, say=say, signals=signals)
        self.beside: list[Beside] = [] if once else [AutoworkLoop(ws, say), *beside]
        self._loop: asyncio.AbstractEventLoop | None = None
        self._guard = threading.Lock()
        self._stopped = False

    def run(self) -> int:
        """Run until stopped (``once``: until what was pending has run); the number of
        runs started.

        Raises:
            Busy: another runner holds the workspace. AgentsConfigError: ``agents:`` is wrong.
        """
        for loop in self.beside:
            loop.start()
        try:
            return asyncio.run(self._main())
        finally:
            for loop in self.beside:
                loop.stop()

    async def _main(self) -> int:
        with self._guard:
            self._loop = asyncio.get_running_loop()
            if self._stopped:
                self.runner.stopping.set()
        return await self.runner.run()

    def stop(self) -> None:
        """End it from any thread: the runner stops its runs (SIGTERM, grace, SIGKILL) and
        :meth:`run` returns. Asked before :meth:`run` started, it ends at once."""
        with self._guard:
            self._stopped = True
            if self._loop is not None:
                try:
                    self._loop.call_soon_threadsafe(self.runner.stopping.set)
                except RuntimeError:
                    pass  # its loop is closed: the runner has ended already
