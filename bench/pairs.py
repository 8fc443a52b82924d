"""Ratios of paired samples, their spread, and whether two runs agree within it.

The ratio table measures each target and its floor one right after the other (A B A B…,
the order flipped every pair), so a pair saw the machine's load at nearly the same
moment; its ratio is taken per pair, and a row's ratio is the median of its pairs'
ratios. Its spread is the interquartile range of those ratios (half of the pairs fall
inside it), what a reader sees of one pair's noise. How far a second run's median may
fall from the first's is another question, answered by the median's own interval
(:func:`median_interval`, 95 %): with 24 pairs it is narrower than the IQR, with 4 it
is their whole range. :func:`agreement` checks each run's median against the other's
interval, row by row.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

CLOSE = 0.05
"""Medians closer than this agree even outside a narrower range (see :func:`verdict`)."""


def ratios(pairs: Sequence[tuple[float, float]]) -> list[float]:
    """``subject / floor`` of every pair whose floor is not zero (or not a number)."""
    return [subject / floor for subject, floor in pairs if floor and floor == floor and subject == subject]


def median_and_iqr(values: Sequence[float]) -> tuple[float, tuple[float, float]] | None:
    """The median of ``values`` and its interquartile range (the 25th and 75th
    percentiles, inclusive method: one value gives a range of that value)."""
    if not values:
        return None
    if len(values) == 1:
        return values[0], (values[0], values[0])
    low, _mid, high = statistics.quantiles(values, n=4, method="inclusive")
    return statistics.median(values), (low, high)


LEVEL = 0.95
"""The confidence of :func:`median_interval`."""


def median_interval(values: Sequence[float], level: float = LEVEL) -> tuple[float, float] | None:
    """The distribution-free confidence interval of the median of ``values``: the
    order statistics ``x(k)`` and ``x(n+1-k)`` with the largest ``k`` for which the
    median lies outside with probability at most ``1 - level`` (the number of values
    under the median is binomial, n and 1/2). Fewer than six values cannot reach 95 %:
    the interval is then their whole range (87.5 % with four, 75 % with three)."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return None
    k, below = 1, 0.0
    for rank in range(1, n // 2 + 1):
        below += math.comb(n, rank - 1) / 2**n  # P(fewer than `rank` values under the median)
        if 2 * below > 1 - level:
            break
        k = rank
    return ordered[k - 1], ordered[n - k]


def within(value: float, spread: Sequence[float] | None) -> bool:
    return bool(spread) and spread[0] <= value <= spread[1]  # type: ignore[index]


def verdict(first: dict, second: dict) -> str:
    """Whether two runs' rows agree: "agree" when each median lies in the other's
    interval (``interval``, the median's 95 % interval; rows without one use
    ``spread``), "agree one way" when one does, "overlap" when only the intervals
    overlap, else "DIFFER"; "within 5 %" when the medians are that close though the
    intervals are narrower (peak memory)."""
    a, b = first.get("ratio"), second.get("ratio")
    if a is None or b is None:
        return ""
    sa, sb = _interval(first), _interval(second)
    in_b, in_a = within(a, sb), within(b, sa)
    if in_a and in_b:
        return "agree"
    if in_a or in_b:
        return "agree one way"
    if abs(a / b - 1) < CLOSE:
        return "within 5 %"
    if sa and sb and sa[0] <= sb[1] and sb[0] <= sa[1]:
        return "overlap"
    return "DIFFER"


def _interval(row: dict) -> Sequence[float] | None:
    return row.get("interval") or row.get("spread")


def agreement(runs: Sequence[Sequence[dict]]) -> list[str]:
    """A Markdown table: each row's ratio (the median's interval) in every run and,
    for each run after the first, whether it agrees with the first (see
    :func:`verdict`), with a count."""
    first = runs[0]
    later = runs[1:]
    heads = " | ".join(f"run {n + 1}" for n in range(len(runs)))
    checks = " | ".join(f"run {n + 2} vs 1" for n in range(len(later)))
    lines = [f"| size | target | {heads} | {checks} |", "|---|---|" + "---|" * (len(runs) + len(later))]
    counts: dict[str, int] = {}
    for row in first:
        if row.get("ratio") is None:
            continue
        key = (row["size"], row["name"])
        others = [next((item for item in run if (item["size"], item["name"]) == key), {}) for run in later]
        shown = [_shown(row), *(_shown(item) for item in others)]
        verdicts = [verdict(row, item) for item in others]
        for item in verdicts:
            counts[item] = counts.get(item, 0) + 1
        lines.append(f"| {row['size']} | {row['name']} | {' | '.join(shown)} | {' | '.join(verdicts)} |")
    total = ", ".join(f"{name}: {count}" for name, count in sorted(counts.items()))
    lines += ["", f"rows: {total}"]
    return lines


def _shown(row: dict) -> str:
    if not row or row.get("ratio") is None:
        return "-"
    interval = _interval(row)
    return f"{row['ratio']:.2f}× ({interval[0]:.2f}-{interval[1]:.2f})" if interval else f"{row['ratio']:.2f}×"
