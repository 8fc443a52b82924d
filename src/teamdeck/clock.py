"""The one source of "now" so tests and snapshots can inject a fixed clock.

:class:`FixedClock` is a plain class, not a dataclass: every ``send`` imports this
module, and importing ``dataclasses`` would cost it ~8 ms."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import lru_cache

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """ISO-8601 UTC with milliseconds and ``Z``, the form Claude Code writes."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def duration(span: timedelta) -> str:
    """A duration in a few characters: ``90s``, ``2m``, ``1h30m`` (a shutdown's
    timeout, how long a run took)."""
    seconds = max(0, int(span.total_seconds()))
    if seconds < 60 or seconds % 60:
        return f"{seconds}s" if seconds < 60 else f"{seconds // 60}m{seconds % 60}s"
    minutes = seconds // 60
    return f"{minutes}m" if minutes < 60 else f"{minutes // 60}h" + (f"{minutes % 60}m" if minutes % 60 else "")


def parse_iso(text: str) -> datetime:
    """Parse an ISO-8601 timestamp (``Z`` or offset); naive values are taken as UTC.

    Raises:
        ValueError: the text is not an ISO-8601 timestamp.
    """
    moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@lru_cache(maxsize=65_536)
def moment_of(text: str) -> datetime | None:
    """``text`` parsed by :func:`parse_iso`, or None when it is not a timestamp; each
    text parsed once (the live view judges the same timestamps at every change and
    every tick of its clock)."""
    try:
        return parse_iso(text)
    except (ValueError, TypeError):
        return None


class FixedClock:
    """A clock that always answers ``moment`` (tests, snapshots). A class, not a
    closure, so a workspace with it can be pickled (the TUI's first read is sent from
    a child process)."""

    __slots__ = ("moment",)

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


def fixed_clock(moment: datetime) -> Clock:
    """A clock that always answers ``moment`` (tests, snapshots)."""
    return FixedClock(moment)
