"""The demo scenario's clockwork: a queue of actions due at scenario seconds.

Scenario time starts at 0 and, when running live, advances ``speed`` times faster than
real time. :meth:`Scheduler.advance` runs every action due up to a moment, in order
(ties in the order they were scheduled), so a run is a pure function of the seed, the
files it meets and *when* it meets them: tests drive :meth:`advance` directly and get
the same sequence every time; ``teamdeck demo`` drives it with :meth:`Scheduler.run`
on a thread until a stop event is set.

An action that fails with a :class:`~teamdeck.errors.TeamdeckError` or an ``OSError``
(a lock held past its timeout, a file a person broke on purpose) is recorded in
:attr:`Scheduler.errors` and the scenario goes on: a demo must not die of one bad
file. Anything else is a bug and propagates.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from teamdeck.errors import TeamdeckError

log = logging.getLogger(__name__)

MAX_WAIT_S = 0.25
"""Longest a live run sleeps at once, so a stop event is honoured promptly even when
nothing is due (the wait returns at once when the event is set anyway)."""


@dataclass(order=True)
class Due:
    """An action waiting for its moment."""

    at: float
    seq: int
    label: str = field(compare=False)
    action: Callable[[], None] = field(compare=False)


@dataclass(frozen=True)
class Happened:
    """An action that ran: when (scenario seconds) and what (its label)."""

    at: float
    label: str


class Scheduler:
    """Runs labelled actions at scenario times; actions may schedule more.

    Attributes:
        now: the current scenario time in seconds.
        history: every action that ran, in order.
        errors: ``"<label>: <message>"`` for every action that failed.
    """

    def __init__(self) -> None:
        self.now = 0.0
        self.history: list[Happened] = []
        self.errors: list[str] = []
        self._queue: list[Due] = []
        self._seq = itertools.count()

    def after(self, delay: float, label: str, action: Callable[[], None]) -> None:
        """Run ``action`` ``delay`` scenario seconds from now."""
        heapq.heappush(self._queue, Due(self.now + max(0.0, delay), next(self._seq), label, action))

    def next_at(self) -> float | None:
        """When the next action is due (None: nothing is scheduled)."""
        return self._queue[0].at if self._queue else None

    def advance(self, until: float) -> None:
        """Run every action due at or before ``until``, then set :attr:`now` to it."""
        while self._queue and self._queue[0].at <= until:
            due = heapq.heappop(self._queue)
            self.now = due.at
            try:
                due.action()
            except (TeamdeckError, OSError) as err:
                self.errors.append(f"{due.label}: {err}")
                log.warning("scenario step %s failed: %s", due.label, err)
                continue
            self.history.append(Happened(due.at, due.label))
        self.now = max(self.now, until)

    def run(
        self,
        stop: threading.Event,
        *,
        speed: float = 1.0,
        duration: float | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """Advance with real time (times ``speed``) until ``stop`` is set or ``duration``
        real seconds have passed.

        Args:
            stop: set it (from any thread) to end the run within :data:`MAX_WAIT_S`.
            speed: scenario seconds per real second.
            duration: real seconds to run for (None: until stopped).
            monotonic: the real clock (injectable for tests).
        """
        if speed <= 0:
            raise ValueError("speed must be positive")
        start = monotonic()
        while not stop.is_set():
            elapsed = monotonic() - start
            if duration is not None and elapsed >= duration:
                return
            self.advance(elapsed * speed)
            upcoming = self.next_at()
            wait = MAX_WAIT_S if upcoming is None else (upcoming - self.now) / speed
            if duration is not None:
                wait = min(wait, duration - elapsed)
            stop.wait(min(max(wait, 0.0), MAX_WAIT_S))
