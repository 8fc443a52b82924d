"""The automatic step beside the runner: ``teamdeck run`` also advances plans, verifies
tasks on review and catches stalls (protocol/autowork ``supervise``, the step ``teamdeck
supervise`` takes), in a thread of its own so a guardian that runs for minutes never
holds up a wake. It looks every :data:`EVERY_S` seconds, or sooner when a stall falls
due; what it does is said like the runner's own lines."""

from __future__ import annotations

import threading
from collections.abc import Callable

from teamdeck.errors import TeamdeckError
from teamdeck.protocol.autowork.step import supervise
from teamdeck.store.workspace import Workspace

EVERY_S = 5.0


class AutoworkLoop:
    """See the module. ``start()`` once; ``stop()`` waits for the step under way."""

    def __init__(self, ws: Workspace, say: Callable[[str], None], every_s: float = EVERY_S) -> None:
        self.ws, self.say, self.every_s = ws, say, every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="autowork", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=60)

    def _loop(self) -> None:
        while not self._stop.is_set():
            wait = self.every_s
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
