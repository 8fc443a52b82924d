"""Wakes waiting to become runs: kept in arrival order, let through while the workspace
and the member's team have room (``max_concurrent``), one per member at a time."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from teamdeck.runner.inboxes import Unread

Key = tuple[str, str]
"""``(team, member)``."""


@dataclass
class Wake:
    """A member to run.

    Attributes:
        trigger: ``message``, ``created``, ``wake`` (by a person) or ``retry``.
        arrived: when the wake arrived (epoch s): the queue's order, and the queue wait.
        attempt: 1, or the retry's number.
        retry_of: the failed run a retry follows.
        carried: messages a retry injects again (the failed run's).
        due: a retry's earliest start (epoch s; 0: now).
    """

    team: str
    member: str
    trigger: str
    arrived: float
    attempt: int = 1
    retry_of: str | None = None
    carried: tuple[Unread, ...] = ()
    due: float = 0.0

    @property
    def key(self) -> Key:
        return (self.team, self.member)


@dataclass
class WakeQueue:
    """Wakes in arrival order, at most one per member."""

    waiting: list[Wake] = field(default_factory=list)

    def __contains__(self, key: Key) -> bool:
        return any(wake.key == key for wake in self.waiting)

    def __len__(self) -> int:
        return len(self.waiting)

    def push(self, wake: Wake) -> bool:
        """Queue ``wake`` unless its member already waits (False)."""
        if wake.key in self:
            return False
        self.waiting.append(wake)
        return True

    def drop(self, key: Key) -> None:
        self.waiting = [wake for wake in self.waiting if wake.key != key]

    def take(self, running: Iterable[Key], global_limit: int, team_limit: Callable[[str], int | None]) -> list[Wake]:
        """The wakes that may start now, oldest first, removed from the queue: while the
        workspace has room; a wake whose team is full waits without holding up others."""
        busy = list(running)
        per_team = Counter(team for team, _member in busy)
        room = global_limit - len(busy)
        taken: list[Wake] = []
        for wake in list(self.waiting):
            if room <= 0:
                break
            limit = team_limit(wake.team)
            if limit is not None and per_team[wake.team] >= limit:
                continue
            self.waiting.remove(wake)
            taken.append(wake)
            per_team[wake.team] += 1
            room -= 1
        return taken


def next_due(backoff: dict[Key, Wake]) -> float:
    """When the first retry waiting in ``backoff`` is due, on the monotonic clock (an
    hour away when none is)."""
    if not backoff:
        return time.monotonic() + 3600
    return time.monotonic() + max(0.0, min(wake.due for wake in backoff.values()) - time.time())


def promote_due(backoff: dict[Key, Wake], queue: WakeQueue) -> None:
    """Move the retries whose time has come from ``backoff`` to ``queue``."""
    now = time.time()
    for key, wake in list(backoff.items()):
        if wake.due <= now:
            del backoff[key]
            queue.push(wake)
