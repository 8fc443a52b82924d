"""Timestamps as the ledger's fold and rules compare them.

Agent-written timestamps may be missing or unreadable; such a one is never later than
another and never the newest, so a bad timestamp tells the rules nothing (a member is
not idle "after" it, a request made at it is never overdue) instead of raising.
"""

from __future__ import annotations

from datetime import datetime

from teamdeck.clock import parse_iso


def moment_of(text: str | None) -> datetime | None:
    """The moment ``text`` names, or None when it is empty or not ISO-8601."""
    if not text:
        return None
    try:
        return parse_iso(text)
    except ValueError:
        return None


def later(a: str | None, b: str | None) -> bool:
    """Whether timestamp ``a`` is strictly after ``b`` (False if either is unreadable)."""
    first, second = moment_of(a), moment_of(b)
    return first is not None and second is not None and first > second


def newer(a: datetime | None, b: datetime | None) -> datetime | None:
    """The later of two readable moments (an unreadable one, None, never wins)."""
    if a is None:
        return b
    return a if b is None or a > b else b
