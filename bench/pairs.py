"""Ratios of paired samples, their spread, and whether two runs agree within it.

The ratio table measures each target and its floor one right after the other (A B A B…,
the order flipped every pair), so a pair saw the machine's load at nearly the same
moment; its ratio is taken per pair, and a row's ratio is the median of its pairs'
ratios. Its spread is the interquartile range of those ratios (half of the pairs fall
inside it): a second run on the same machine, as noisy as the first, should put its
median inside it. :func:`agreement` checks exactly that, row by row.
"""

from __future__ import annotations

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


def within(value: float, spread: Sequence[float] | None) -> bool:
    return bool(spread) and spread[0] <= value <= spread[1]  # type: ignore[index]


def verdict(first: dict, second: dict) -> str:
    """Whether two runs' rows (``ratio`` and ``spread``) agree within their spread:
    "agree" when each median lies in the other's range, "agree one way" when one
    does, "overlap" when only the ranges overlap, else "DIFFER"; "within 5 %" when the
    medians are that close though the ranges are narrower (peak memory, a single pair)."""
    a, b = first.get("ratio"), second.get("ratio")
    if a is None or b is None:
        return ""
    in_b, in_a = within(a, second.get("spread")), within(b, first.get("spread"))
    if in_a and in_b:
        return "agree"
    if in_a or in_b:
        return "agree one way"
    if abs(a / b - 1) < CLOSE:
        return "within 5 %"
    sa, sb = first.get("spread"), second.get("spread")
    if sa and sb and sa[0] <= sb[1] and sb[0] <= sa[1]:
        return "overlap"
    return "DIFFER"


def agreement(runs: Sequence[Sequence[dict]]) -> list[str]:
    """A Markdown table: each row's ratio (IQR) in every run and, for each run after
    the first, whether it agrees with the first (see :func:`verdict`), with a count."""
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
    spread = row.get("spread")
    return f"{row['ratio']:.2f}× ({spread[0]:.2f}-{spread[1]:.2f})" if spread else f"{row['ratio']:.2f}×"
