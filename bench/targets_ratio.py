"""Each on-screen target next to its floor, measured in the same run, as a ratio.

Absolute milliseconds move with the machine's disk, CPU and load (another machine of
the same kind measured the approve key at 3.6 times this one's); the ratio to what a bare
Textual app needs for the same thing on the same machine at the same moment does much
less. The floors come from bench/bare_app.py:

| target | floor |
|---|---|
| start → first complete screen | the bare app's first frame (import Textual, one screen of the same size) |
| write → screen | teamdeck's watcher alone in the bare app, plus one frame per batch |
| approve key → durable and on screen | one fsync'd append plus one frame of the bare app |
| CPU (idle, 20 writes/s) | the bare app with the watcher, the same writes |
| peak memory | the bare app with the watcher |

Real and bare alternate in ``rounds`` (the real app's session, then the bare app's),
so a change in the machine's load touches both; the ratio is of the medians over all
rounds, and its spread is the lowest and highest of the rounds' own ratios.

A round of one side: ``starts`` launches timed to the first screen and closed, then a
session: launched (one more start sample), settled, CPU idle for ``cpu_window_s`` and
with 20 inbox writes per second for as long, ``writes`` single writes timed to the
screen, a burst (real app only: absolute targets), ``approvals`` Enter presses timed to
disk and screen, and the peak RSS at the end.
"""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from common import append_inbox_in_place, cpu_ns, peak_rss_mb, percentile
from generate import Layout
from screen import Terminal
from targets_screen import STAMP, UNREAD, _pace, _poll, _value, approvals, burst_rounds, writes_to_screen

BARE_APP = Path(__file__).with_name("bare_app.py")
BATCHES = re.compile(rb"(?<![0-9])([0-9]+) batches")
DECIDED = re.compile(rb"(?<![0-9])([0-9]+) decided")


@dataclass(frozen=True)
class Counts:
    """Repetitions of one size's measurement."""

    rounds: int = 3
    starts: int = 1
    writes: int = 15
    approvals: int = 8
    cpu_window_s: float = 1.5
    burst_writes: int = 1000
    settle_s: float = 0.3


@dataclass
class Side:
    """Everything one app (real or bare) measured, per round."""

    start_ms: list[list[float]] = field(default_factory=list)
    write_ms: list[list[float]] = field(default_factory=list)
    approve_ms: list[list[float]] = field(default_factory=list)
    durable_ms: list[list[float]] = field(default_factory=list)
    idle_cpu: list[float] = field(default_factory=list)
    busy_cpu: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    settle_s: list[float] = field(default_factory=list)
    """First screen → start-up work done (see :func:`_settle`), per round."""
    burst: list[tuple[float, float, int]] = field(default_factory=list)
    """(first write → first update, last write → final state, lost) of each burst."""


def _launch(layout: Layout, bare: bool, decided: int, *args: str) -> tuple[Terminal, float]:
    """The app (or the bare app) started; its first complete screen's time in ms: the
    overview line with every member counted and the oldest waiting gate's row (the
    first ``decided`` gates were approved by earlier rounds)."""
    # Every team counted: "100 teams · 2000 members:" or, on the compact line, "100 teams:".
    teams = f"{len(layout.teams)} team{'s' if len(layout.teams) != 1 else ''}"
    members = re.compile(f"{teams} · {layout.members} members|{teams}: ".encode())
    waiting = layout.gates[decided:]
    first = waiting[0][0].encode() if waiting else b"no decisions waiting"
    if bare:
        extra = ("--overview", f"{teams} · {layout.members} members", "--first", first.decode(), *args)
        term = Terminal(layout.root, *extra, program=BARE_APP)
    else:
        term = Terminal(layout.root, *args)
    try:
        at_overview, _m = term.wait_for(members, 0, 60)
        at_rows, _m = term.wait_for(first, 0, 60)
    except BaseException:
        term.close()
        raise
    return term, (max(at_overview, at_rows) - term.started) * 1000


def _settle(term: Terminal, least_s: float, timeout_s: float = 60.0) -> float:
    """Wait at least ``least_s``, then until the app's start-up work is done: a 0.5 s
    window in which it used under 5 % of a core. Returns the seconds waited (at 10×,
    checking 5,800 workers' outputs and mounting the other panels takes seconds after
    the first screen; CPU measured before that is start-up, not idle)."""
    begin = time.perf_counter()
    time.sleep(least_s)
    while time.perf_counter() - begin < timeout_s:
        before = cpu_ns(term.pid)
        time.sleep(0.5)
        if (cpu_ns(term.pid) - before) / 1e9 / 0.5 < 0.05:
            break
    return time.perf_counter() - begin - 0.5


def _cpu_percent(term: Terminal, window_s: float, writes: list[Path] | None) -> float:
    """The app's CPU over ``window_s`` (all threads), idle or with 20 writes a second."""
    before, begin = cpu_ns(term.pid), time.perf_counter()
    if writes:
        for n in range(int(window_s * 20)):
            _pace(begin + n / 20)
            append_inbox_in_place(writes[n % len(writes)], "bench", f"cpu {n}", STAMP)
    _pace(begin + window_s)
    return (cpu_ns(term.pid) - before) / 1e9 / window_s * 100


def _bare_approvals(term: Terminal, log: Path, count: int) -> tuple[list[float], list[float]]:
    """The bare app's Enter: one fsync'd append to ``log`` and ``<n> decided`` on screen."""
    both, durable = [], []
    for n in range(1, count + 1):
        before = log.stat().st_size if log.exists() else 0
        mark = term.mark()
        time.sleep(0.01)
        pressed = term.send(b"\r")
        on_disk = _poll(lambda: log.exists() and log.stat().st_size > before)
        shown, _match = term.wait_for(_value(DECIDED, n), mark, 10)
        both.append((max(on_disk, shown) - pressed) * 1000)
        durable.append((on_disk - pressed) * 1000)
        time.sleep(0.05)
    return both, durable


def _round(layout: Layout, side: Side, bare: bool, number: int, counts: Counts) -> None:
    """One round of one side (see the module's docstring)."""
    starts = []
    decided = number * counts.approvals
    for _ in range(counts.starts):
        term, first_ms = _launch(layout, bare, decided)
        starts.append(first_ms)
        # Not waited for long: at 10x the app takes seconds after its first screen to
        # check 5,800 workers' outputs and only quits once that is done.
        term.close(timeout=1.0)
    log = layout.root.parent / f"{layout.root.name}-bare-decisions.jsonl"
    args = ("--watch", "--durable", str(log)) if bare else ()
    term, first_ms = _launch(layout, bare, decided, *args)
    starts.append(first_ms)
    side.start_ms.append(starts)
    with term:
        side.settle_s.append(_settle(term, counts.settle_s) * 1000)
        inboxes = layout.inboxes()
        side.idle_cpu.append(_cpu_percent(term, counts.cpu_window_s, None))
        side.busy_cpu.append(_cpu_percent(term, counts.cpu_window_s, inboxes))
        side.write_ms.append(writes_to_screen(term, layout, counts.writes, number, BATCHES if bare else UNREAD))
        if not bare and counts.burst_writes:
            side.burst += burst_rounds(term, layout, counts.burst_writes, 1)
        if bare:
            both, durable = _bare_approvals(term, log, counts.approvals)
        else:
            gates = layout.gates[decided : decided + counts.approvals]
            both, durable, _screen = approvals(term, layout, gates)
        side.approve_ms.append(both)
        side.durable_ms.append(durable)
        side.rss_mb.append(peak_rss_mb(term.pid))


@dataclass(frozen=True)
class Row:
    """One line of the ratio table: a target at one size, against its floor."""

    size: str
    name: str
    unit: str
    value: float
    floor: float | None
    spread: tuple[float, float] | None
    """Lowest and highest ratio of the rounds."""
    detail: str = ""
    target: float | None = None
    """The ratio the target allows (None: no target on the ratio)."""
    absolute: str = ""
    """An absolute target on the value, and whether it is met, for rows without a ratio."""
    met: bool | None = None

    @property
    def ratio(self) -> float | None:
        return self.value / self.floor if self.floor else None

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio}


def _median(rounds: list[list[float]]) -> float:
    return statistics.median([value for values in rounds for value in values])


def _spread(real: list[Any], bare: list[Any]) -> tuple[float, float] | None:
    """The lowest and highest of the rounds' ratios (medians of lists, or values)."""
    ratios = []
    for mine, floor in zip(real, bare, strict=True):
        value = statistics.median(mine) if isinstance(mine, list) else mine
        base = statistics.median(floor) if isinstance(floor, list) else floor
        if base:
            ratios.append(value / base)
    return (min(ratios), max(ratios)) if ratios else None


def measure(layout: Layout, size: str, counts: Counts) -> list[Row]:
    """The ratio rows of one workspace size."""
    real, bare = Side(), Side()
    for number in range(counts.rounds):
        _round(layout, real, False, number, counts)
        _round(layout, bare, True, number, counts)
    rows = []

    def latency(name: str, mine: list[list[float]], floor: list[list[float]], target: float | None) -> Row:
        flat = [value for values in mine for value in values]
        flat_floor = [value for values in floor for value in values]
        detail = f"p99 {percentile(flat, 0.99):.1f} / floor p99 {percentile(flat_floor, 0.99):.1f} ms, n={len(flat)}"
        met = None if target is None else _median(mine) / _median(floor) <= target
        return Row(size, name, "ms", _median(mine), _median(floor), _spread(mine, floor), detail, target, met=met)

    rows.append(latency("start → first complete screen", real.start_ms, bare.start_ms, 1.5))
    rows.append(
        Row(
            size,
            "  then start-up work done (CPU < 5 % for 0.5 s)",
            "ms",
            statistics.median(real.settle_s),
            statistics.median(bare.settle_s),
            _spread(real.settle_s, bare.settle_s),
        )
    )
    rows.append(latency("write → screen", real.write_ms, bare.write_ms, 1.5))
    rows.append(latency("approve key → durable and on screen", real.approve_ms, bare.approve_ms, 2.0))
    rows.append(latency("  of which durable", real.durable_ms, bare.durable_ms, None))
    for name, mine, floor in (
        ("CPU idle", real.idle_cpu, bare.idle_cpu),
        ("CPU at 20 writes/s", real.busy_cpu, bare.busy_cpu),
    ):
        rows.append(
            Row(size, name, "% of a core", statistics.median(mine), statistics.median(floor), _spread(mine, floor))
        )
    rows.append(Row(size, "peak memory", "MB", max(real.rss_mb), max(bare.rss_mb), _spread(real.rss_mb, bare.rss_mb)))
    if real.burst:
        first = max((item[0] for item in real.burst), key=lambda v: v if v == v else float("inf"))
        final = max((item[1] for item in real.burst), key=lambda v: v if v == v else float("inf"))
        lost = sum(item[2] for item in real.burst)
        each = ", ".join(f"{a:.0f}/{b:.0f}" for a, b, _lost in real.burst)
        rows.append(
            Row(
                size,
                "burst 1,000 writes/s: first / final update",
                "ms",
                final,
                None,
                None,
                f"first max {first:.0f} ms, final max {final:.0f} ms, {lost} lost (each first/final: {each})",
                absolute="first ≤ 100, final ≤ 150 ms, 0 lost",
                met=first <= 100 and final <= 150 and lost == 0,
            )
        )
    return rows


def _number(value: float, unit: str) -> str:
    if unit == "% of a core":
        return f"{value:.2f} %"
    return f"{value:,.1f} {unit}" if value < 100 else f"{value:,.0f} {unit}"


def format_rows(rows: list[Row]) -> list[str]:
    """The Markdown table of ``rows``: measured, floor, ratio with its spread, target."""
    lines = [
        "| size | target | measured (median) | floor (median) | ratio (rounds' range) | must | |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = row.ratio
        if ratio is None:
            shown, spread = "", ""
        else:
            shown = f"{ratio:.2f}×"
            spread = f" ({row.spread[0]:.2f}-{row.spread[1]:.2f})" if row.spread else ""
        must = f"≤ {row.target:g}×" if row.target is not None else row.absolute
        verdict = {True: "ok", False: "MISS", None: ""}[row.met]
        detail = f"; {row.detail}" if row.detail else ""
        floor = _number(row.floor, row.unit) if row.floor is not None else ""
        lines.append(
            f"| {row.size} | {row.name} | {_number(row.value, row.unit)}{detail} | {floor} | {shown}{spread} | {must} | {verdict} |"
        )
    return lines


def growth_lines(rows: list[Row], factors: dict[str, float]) -> list[str]:
    """How each row grows with the workspace: its value at every size over its value at
    the smallest, against the size factor (faster than the factor is super-linear)."""
    sizes = list(factors)
    if len(sizes) < 2:
        return []
    base = sizes[0]
    lines = [
        f"| target | {' | '.join(sizes)} | growth {sizes[-1]} / {base} (size ×{factors[sizes[-1]] / factors[base]:g}) | ratio at {' / '.join(sizes)} |",
        "|---|" + "---|" * len(sizes) + "---|---|",
    ]
    names = list(dict.fromkeys(row.name for row in rows))
    for name in names:
        by_size = {row.size: row for row in rows if row.name == name}
        if base not in by_size or sizes[-1] not in by_size:
            continue
        values = [by_size[size].value if size in by_size else float("nan") for size in sizes]
        growth = by_size[sizes[-1]].value / by_size[base].value if by_size[base].value else float("nan")
        linear = factors[sizes[-1]] / factors[base]
        verdict = "super-linear" if growth > linear else "≤ linear"
        ratios = " / ".join(
            f"{by_size[size].ratio:.2f}×" if size in by_size and by_size[size].ratio else "-" for size in sizes
        )
        unit = by_size[base].unit
        lines.append(
            f"| {name} ({unit}) | {' | '.join(f'{value:,.2f}' if value < 10 else f'{value:,.0f}' for value in values)} | ×{growth:.2f} ({verdict}) | {ratios} |"
        )
    return lines
