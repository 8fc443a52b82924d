"""Catching up with Gitea at start and every few minutes while ``forge serve`` or
``teamdeck run`` runs (protocol/forge/catchup.py says what a catch-up does): a thread
that calls it through the REST adapter, says one line per effect (logged, or through
the front's ``say``), and keeps going when Gitea cannot be reached (the next round reads
what this one could not)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from teamdeck.adapters.gitea_api import GiteaApi
from teamdeck.errors import TeamdeckError
from teamdeck.protocol.forge.catchup import INTERVAL_S, catch_up
from teamdeck.store.workspace import Workspace

log = logging.getLogger("teamdeck.forge")

CATCH_UP_EVERY_S = INTERVAL_S


class CatchUpLoop:
    """A daemon thread catching up now and every ``every_s`` seconds until :meth:`stop`;
    ``say``: where its lines go (default: the ``teamdeck.forge`` log)."""

    def __init__(self, ws: Workspace, api: GiteaApi, every_s: float, say: Callable[[str], None] | None = None) -> None:
        self.ws, self.api, self.every_s, self.say = ws, api, every_s, say
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="forge-catch-up", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=30)

    def once(self) -> None:
        """One catch-up; its failure is one logged line."""
        try:
            done = catch_up(self.ws, self.api)
        except TeamdeckError as err:
            self._say(logging.WARNING, f"forge: catch-up failed (tried again in {self.every_s:g} s): {err}")
            return
        for line in done.lines:
            self._say(logging.INFO, f"forge: caught up: {line}")

    def _say(self, level: int, line: str) -> None:
        if self.say is not None:
            self.say(line)
        else:
            log.log(level, "%s", line)

    def _run(self) -> None:
        while not self._stopped.is_set():
            self.once()
            self._stopped.wait(self.every_s)
