"""ULIDs (https://github.com/ulid/spec): the ids of every appended record.

A ULID is 48 bits of milliseconds since the epoch and 80 random bits, written as 26
characters of Crockford's base32: unique, and sorted by the time it was made. Like
python-ulid's default generator, ids one process makes in the same millisecond count up
from the previous one (strictly monotonic), so they also sort in the order made.

Made here, not with python-ulid: importing it reads its own version from the installed
metadata (``importlib.metadata``), about 15 ms of every ``teamdeck hook`` and ``send``
start, which agents pay on every turn; the ids themselves are a shift and a lookup.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from datetime import datetime

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
"""Crockford's base32: no I, L, O or U."""

RANDOM_BITS = 80


def encode(ms: int, randomness: int) -> str:
    """The 26 characters of the ULID of time ``ms`` with random part ``randomness``."""
    value = (ms << RANDOM_BITS) | randomness
    return "".join(ALPHABET[(value >> shift) & 31] for shift in range(125, -1, -5))


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _random() -> int:
    return int.from_bytes(os.urandom(RANDOM_BITS // 8), "big")


class Generator:
    """Makes ULIDs; ``clock`` (milliseconds, for an id made without a time) and
    ``randomness`` are what the demo script and the deterministic test worlds replace."""

    def __init__(self, clock: Callable[[], int] = _now_ms, randomness: Callable[[], int] = _random) -> None:
        self.clock = clock
        self.randomness = randomness
        self._lock = threading.Lock()
        self._last = (-1, 0)

    def new(self, moment: datetime | None = None) -> str:
        """A ULID for ``moment`` (default: now).

        Raises:
            ValueError: more ids in one millisecond than the 80 random bits can count up.
        """
        ms = int(moment.timestamp() * 1000) if moment is not None else self.clock()
        with self._lock:
            last_ms, last_random = self._last
            random = last_random + 1 if ms == last_ms else self.randomness()
            if random >> RANDOM_BITS:
                raise ValueError("the random part of the ULIDs of this millisecond is exhausted")
            self._last = (ms, random)
        return encode(ms, random)


generator = Generator()
"""The process's generator (replace it to make ids reproducible)."""


def new_ulid(moment: datetime | None = None) -> str:
    """A new ULID for ``moment`` (default: now), from :data:`generator`."""
    return generator.new(moment)
