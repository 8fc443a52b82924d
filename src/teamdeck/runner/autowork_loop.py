"""The automatic step beside the runner: ``teamdeck run`` also advances plans, verifies
tasks on review and catches stalls (protocol/autowork ``supervise``, the step ``teamdeck
supervise`` takes), in a thread of its own so a guardian that runs for minutes never
holds up a wake. It looks every ``autowork.everySeconds`` (read again each time, so a
change of the settings needs no restart; :data:`EVERY_S` when they cannot be read), or
sooner when a stall falls due; what it does is said like the runner's own lines."""

from __future__ import annotations

import threading
from collections.abc import Callable

from teamdeck.errors import TeamdeckError
from teamdeck.model.settings import AutoworkSettings
from teamdeck.protocol.autowork.step import supervise
from teamdeck.store.settings import load_settings
from teamdeck.store.workspace import Workspace

EVERY_S = AutoworkSettings().everySeconds


class AutoworkLoop:
    """See the module. ``start()`` once; ``stop()`` waits for the step under way."""

    def __init__(self, ws: Workspace, say: Callable[[str], None]) -> None:
        self.ws, self.say = ws, say
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="autowork", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def _loop(self) -> None:
        while not self._stop.is_set():
            wait = self._every_s()
            try:
                result = supervise(self.ws)
            except TeamdeckError as err:  # the settings cannot be read, the disk refused: said, tried again
                self.say(f"autowork: {err}")
            else:
                for step in result.steps:
                    self.say(f"autowork: {step.line}")
                if result.next_in_s is not None:
                    wait = min(wait, result.next_in_s + 0.05)
            self._stop.wait(max(0.2, wait))

    def _every_s(self) -> float:
        """``autowork.everySeconds`` now (the step itself says why settings that cannot
        be read are a problem)."""
        try:
            return load_settings(self.ws.root).autowork.everySeconds
        except TeamdeckError:
            return EVERY_S
