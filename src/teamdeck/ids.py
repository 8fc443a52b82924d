"""Ids for the records teamdeck writes: ULIDs (26 characters, Crockford base 32).

A ULID is 48 bits of time in milliseconds, then 80 random bits: ids sort by time and
two writers never make the same one. Within one process they are also monotonic, as the
ULID spec describes and python-ulid (used before) made them: an id of the same
millisecond as the one before is that one plus one. The read model orders records of the
same millisecond by id (view/refresh/log_merge.py), so a gate's approval shows before the state
change it caused.

ulid-transform turns the 16 bytes into text (C; ~1 ms to import). python-ulid read its
own version from the package metadata when imported: ~20 ms of every command that wrote
a record, among them the ``send`` and ``report`` that agents run on every turn.
ulid-transform has no monotonic mode, and its own random bits come from a per-thread
generator that a fork copies; so the bits come from ``os.urandom`` here, and a forked
child forgets its parent's last id.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from datetime import datetime

from ulid_transform import bytes_to_ulid

_random_part: Callable[[int], bytes] = os.urandom
_lock = threading.Lock()
_last_millisecond = -1
_last_random = 0


def new_ulid(moment: datetime) -> str:
    """A fresh ULID whose time part is ``moment`` (to the millisecond, as
    ``int(timestamp * 1000)``), greater than every id this process made before in
    that millisecond.

    Raises:
        OverflowError: ``moment`` is before 1970 or after the year 10889.
    """
    global _last_millisecond, _last_random
    millisecond = int(moment.timestamp() * 1000)
    time_part = millisecond.to_bytes(6, "big")
    with _lock:
        if millisecond == _last_millisecond:
            random_bits = _last_random + 1  # 2**80 ids in one millisecond would overflow below
        else:
            random_bits = int.from_bytes(_random_part(10), "big")
        _last_millisecond, _last_random = millisecond, random_bits
    return bytes_to_ulid(time_part + random_bits.to_bytes(10, "big"))


def reproducible(random_part: Callable[[int], bytes] | None) -> None:
    """From now on take the random part of every id of a new millisecond from
    ``random_part(10)`` (None: from the OS again): output that must be the same bytes on
    every run (the demo workspace's generator, snapshot tests) sets it together with a
    scripted clock."""
    global _random_part
    _random_part = random_part or os.urandom
    _start_afresh()


def _start_afresh() -> None:
    """No last id: for a new source of random parts, and in a forked child, which must
    not continue its parent's sequence (both would make the same ids) and whose copy of
    the lock may be held by a thread it does not have."""
    global _lock, _last_millisecond
    _lock = threading.Lock()
    _last_millisecond = -1


os.register_at_fork(after_in_child=_start_afresh)
