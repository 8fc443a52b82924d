"""Numbers a run reports, checked: they are read from an agent-written output log (any
program run by ``runtime: command`` prints its own result line) or from a run.yaml any
agent could have rewritten, so they are untrusted.

A cost is a finite number, 0 or more. A run that reports anything else (``NaN``,
``Infinity``, ``-1``, ``"0.5"``, ``true``, an integer too large for a float) has a cost
that cannot be read: :func:`read_cost` says what was wrong, once, and the runner counts
such a run against the member's budget as a person decides (runner/budgets.py), never as
free. A cost left out (the key absent or ``null``) is no cost reported, as before.
Token counts (``usage``) holding a number that is not finite are not kept
(:func:`all_finite`): such a number cannot be written as JSON, and would make the run's
record unwritable.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from teamdeck.text import one_line

SHOWN_CHARS = 40
"""The most of a bad value a problem quotes (it is agent-written)."""


class Cost(NamedTuple):
    """A reported cost, checked.

    Attributes:
        usd: the cost (a finite number, 0 or more), or None.
        problem: why the reported value is no cost (``total_cost_usd is NaN, not a
            cost``), or None: ``usd`` is the cost, or none was reported.
    """

    usd: float | None = None
    problem: str | None = None


def read_cost(value: object, name: str) -> Cost:
    """``value``, reported under the key ``name``, as a :class:`Cost`."""
    if value is None:
        return Cost()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return Cost(problem=f"{name} is {_shown(value)}, not a number")
    try:
        usd = float(value)
    except OverflowError:
        return Cost(problem=f"{name} is an integer too large for a cost")
    if not math.isfinite(usd):
        return Cost(problem=f"{name} is {_shown(value)}, not a finite number")
    if usd < 0:
        return Cost(problem=f"{name} is {_shown(value)}, below 0 (a run cannot credit money back)")
    return Cost(usd=usd)


def _shown(value: object) -> str:
    """A bad value as a problem quotes it, made safe and short (NaN and Infinity as the
    JSON text that carried them)."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("-Infinity" if value < 0 else "Infinity")
    return one_line(repr(value), SHOWN_CHARS)


def all_finite(value: object) -> bool:
    """Whether every float in ``value`` (nested in lists and dicts, at any depth: walked
    without recursion) is finite."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return True
