"""Each on-screen target next to its floor, measured in pairs in the same run, as a ratio.

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

**Pairs.** The real app and the bare app are measured one right after the other, A B
A B… (the order flipped every pair so neither always goes first), each pair at the
same moment of the machine's load: a launch of each; with a session of each open side
by side (the bare app watching a copy of the workspace, so each sees only its own
writes), one write of each timed to its screen, one approval of each timed to disk and
screen, and CPU windows in which both processes are measured at once, under the same
writes. Each pair gives a ratio; a row's ratio is the median of its pairs' ratios and
its spread their interquartile range; a second run's median should fall within the
median's 95 % interval (bench/pairs.py).

A round: ``starts`` launch pairs (each app launched, timed to its first screen and to
the end of its start-up work, and closed), then a session of each (one more launch
pair, timed the same way, the bare app launched once the real one's start-up work is
done), ``cpu_windows`` idle and busy window pairs,
``writes`` write pairs, a burst on the real app (absolute targets), ``approvals``
approval pairs, and the peak RSS of both.
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
from pairs import median_and_iqr, median_interval, ratios
from screen import Terminal
from targets_core import fresh_copy
from targets_screen import STAMP, UNREAD, _pace, _poll, _shown, _value, approvals, burst_rounds

BARE_APP = Path(__file__).with_name("bare_app.py")
BATCHES = re.compile(rb"(?<![0-9])([0-9]+) batches")
DECIDED = re.compile(rb"(?<![0-9])([0-9]+) decided")

QUIET_S = 0.5
QUIET_SHARE = 0.05
"""Start-up work is done at the start of the first ``QUIET_S`` in which the app used
under this share of a core."""

Pair = tuple[float, float]
"""(real app, bare app) measured one right after the other."""


@dataclass(frozen=True)
class Counts:
    """Repetitions of one size's measurement."""

    rounds: int = 4
    starts: int = 2
    writes: int = 8
    approvals: int = 6
    cpu_windows: int = 1
    cpu_window_s: float = 1.5
    burst_writes: int = 1000
    settle_s: float = 0.3


@dataclass
class Pairs:
    """Every pair measured at one size."""

    start: list[Pair] = field(default_factory=list)
    settle: list[Pair] = field(default_factory=list)
    """Launch → start-up work done (see :func:`_settle`), ms, per launch pair."""
    write: list[Pair] = field(default_factory=list)
    approve: list[Pair] = field(default_factory=list)
    durable: list[Pair] = field(default_factory=list)
    idle_cpu: list[Pair] = field(default_factory=list)
    busy_cpu: list[Pair] = field(default_factory=list)
    rss_mb: list[Pair] = field(default_factory=list)
    burst: list[tuple[float, float, int]] = field(default_factory=list)
    """(first write → first update, last write → final state, lost) of each burst."""


@dataclass
class Session:
    """One app open for a round: its terminal, workspace, and counters on screen."""

    term: Terminal
    layout: Layout
    bare: bool
    log: Path | None = None
    """The bare app's decisions file (its Enter appends to it)."""
    shown: int = 0
    """Unread messages (real) or decisions (bare) drawn last."""


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
    """Wait until the app's start-up work is done (and at least ``least_s``); returns
    when it was done, in ms from the launch: the start of the first 0.5 s window after
    the call (made at the first screen) in which the app used under 5 % of a core. At
    10×, checking 5,800 workers' outputs and mounting the other panels takes seconds
    after the first screen; CPU measured before that is start-up, not idle. The CPU is
    sampled every 50 ms and the window slides by one sample, so the moment is known to
    50 ms, not to the window's 0.5 s."""
    begin = time.perf_counter()
    samples: list[tuple[float, int]] = []
    done: float | None = None
    while time.perf_counter() - begin < timeout_s:
        samples.append((time.perf_counter(), cpu_ns(term.pid)))
        now, used = samples[-1]
        while done is None and now - samples[0][0] >= QUIET_S:
            at, before = samples[0]
            if (used - before) / 1e9 / (now - at) < QUIET_SHARE:
                done = at
            else:
                samples.pop(0)
        if done is not None and now - begin >= least_s:
            return (done - term.started) * 1000
        time.sleep(0.05)
    return (time.perf_counter() - term.started) * 1000


def _ordered(sides: tuple[Any, Any], number: int) -> list[tuple[int, Any]]:
    """The two sides (index 0 real, 1 bare) in the order of pair ``number``: flipped
    every pair, so neither side always runs first."""
    both = [(0, sides[0]), (1, sides[1])]
    return both if number % 2 == 0 else both[::-1]


def _cpu_pair(sessions: tuple[Session, Session], window_s: float, busy: bool) -> Pair:
    """Both apps' CPU (all threads, % of a core) over the same window, idle or with 20
    inbox writes a second to each (interleaved: real, bare, real…)."""
    pids = [session.term.pid for session in sessions]
    inboxes = [session.layout.inboxes() for session in sessions]
    before, begin = [cpu_ns(pid) for pid in pids], time.perf_counter()
    if busy:
        for n in range(int(window_s * 20)):
            for side, paths in enumerate(inboxes):
                _pace(begin + (n + side / 2) / 20)
                append_inbox_in_place(paths[n % len(paths)], "bench", f"cpu {n}", STAMP)
    _pace(begin + window_s)
    real, bare = ((cpu_ns(pid) - start) / 1e9 / window_s * 100 for pid, start in zip(pids, before, strict=True))
    return real, bare


def _steady(term: Terminal) -> int:
    """The unread count on screen once it has not changed for 0.5 s (at 10× the app may
    still be drawing the CPU window's writes)."""
    shown = _shown(term, UNREAD)
    while True:
        time.sleep(0.5)
        now = _shown(term, UNREAD)
        if now == shown:
            return now
        shown = now


def _write(session: Session, path: Path, label: str) -> float:
    """One agent's write into ``path`` timed until the app shows it (ms): ``<n+1>
    unread`` on the real app, any new ``<n> batches`` on the bare app."""
    mark = session.term.mark()
    started = time.perf_counter()
    append_inbox_in_place(path, "bench", label, STAMP)
    if session.bare:
        wanted = BATCHES
    else:
        session.shown += 1
        wanted = _value(UNREAD, session.shown)
    arrived, _match = session.term.wait_for(wanted, mark, 10)
    return (arrived - started) * 1000


def _bare_approve(session: Session) -> tuple[float, float]:
    """The bare app's Enter: one fsync'd append and ``<n> decided`` on screen; (both,
    durable) in ms."""
    log, term = session.log, session.term
    assert log is not None
    before = log.stat().st_size if log.exists() else 0
    mark = term.mark()
    time.sleep(0.01)
    pressed = term.send(b"\r")
    on_disk = _poll(lambda: log.exists() and log.stat().st_size > before)
    session.shown += 1
    shown, _match = term.wait_for(_value(DECIDED, session.shown), mark, 10)
    return (max(on_disk, shown) - pressed) * 1000, (on_disk - pressed) * 1000


def _round(layouts: tuple[Layout, Layout], pairs: Pairs, number: int, counts: Counts) -> None:
    """One round (see the module's docstring); ``layouts`` are the real app's workspace
    and the copy the bare app watches."""
    decided = number * counts.approvals
    for n in range(counts.starts):
        measured, settled = [0.0, 0.0], [0.0, 0.0]
        for side, layout in _ordered(layouts, number + n):
            term, measured[side] = _launch(layout, side == 1, decided)
            try:
                settled[side] = _settle(term, 0.0)
            finally:
                term.close(timeout=1.0)
        pairs.start.append((measured[0], measured[1]))
        pairs.settle.append((settled[0], settled[1]))
    real_layout, bare_layout = layouts
    log = bare_layout.root.parent / f"{bare_layout.root.name}-decisions.jsonl"
    term, real_ms = _launch(real_layout, False, decided)
    sessions: list[Session] = [Session(term, real_layout, False)]
    try:
        real_settle = _settle(term, counts.settle_s)
        term, bare_ms = _launch(bare_layout, True, decided, "--watch", "--durable", str(log))
        sessions.append(Session(term, bare_layout, True, log))
        pairs.start.append((real_ms, bare_ms))
        pairs.settle.append((real_settle, _settle(term, counts.settle_s)))
        _session_pairs((sessions[0], sessions[1]), pairs, number, counts)
    finally:
        for session in sessions:
            session.term.close()


def _session_pairs(sessions: tuple[Session, Session], pairs: Pairs, number: int, counts: Counts) -> None:
    """The pairs measured with both apps open: CPU, writes, burst, approvals, memory."""
    real, bare = sessions
    decided = number * counts.approvals
    for _ in range(counts.cpu_windows):
        pairs.idle_cpu.append(_cpu_pair(sessions, counts.cpu_window_s, busy=False))
        pairs.busy_cpu.append(_cpu_pair(sessions, counts.cpu_window_s, busy=True))
    real.shown = _steady(real.term)
    inboxes = [session.layout.inboxes() for session in sessions]
    for n in range(counts.writes):
        measured = [0.0, 0.0]
        for side, session in _ordered(sessions, n):
            paths = inboxes[side]
            measured[side] = _write(session, paths[(number * 7919 + n * 31) % len(paths)], f"latency {number}.{n}")
            time.sleep(0.03)
        pairs.write.append((measured[0], measured[1]))
    if counts.burst_writes:
        pairs.burst += burst_rounds(real.term, real.layout, counts.burst_writes, 1)
    bare.shown = 0  # a new bare app each round: "0 decided"
    for n, gate in enumerate(real.layout.gates[decided : decided + counts.approvals]):
        both, durable = [0.0, 0.0], [0.0, 0.0]
        for side, session in _ordered(sessions, n):
            if session.bare:
                both[side], durable[side] = _bare_approve(session)
            else:
                mine, disk, _screen = approvals(session.term, session.layout, [gate])
                both[side], durable[side] = mine[0], disk[0]
            time.sleep(0.05)
        pairs.approve.append((both[0], both[1]))
        pairs.durable.append((durable[0], durable[1]))
    pairs.rss_mb.append((peak_rss_mb(real.term.pid), peak_rss_mb(bare.term.pid)))


@dataclass(frozen=True)
class Row:
    """One line of the ratio table: a target at one size, against its floor."""

    size: str
    name: str
    unit: str
    value: float
    """The real app's median (peak memory: its largest)."""
    floor: float | None
    ratio: float | None = None
    """The median of the pairs' ratios."""
    spread: tuple[float, float] | None = None
    """The interquartile range of the pairs' ratios."""
    interval: tuple[float, float] | None = None
    """The 95 % interval of the median of the pairs' ratios (bench/pairs.py)."""
    detail: str = ""
    target: float | None = None
    """The ratio the target allows (None: no target on the ratio)."""
    absolute: str = ""
    """An absolute target on the value, and whether it is met, for rows without a ratio."""
    met: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _row(size: str, name: str, unit: str, measured: list[Pair], target: float | None = None, p99: bool = False) -> Row:
    """The row of one target from its pairs: medians of each side, the median ratio and
    its interquartile range; latencies also give their p99s."""
    real = [mine for mine, _floor in measured]
    bare = [floor for _mine, floor in measured]
    each = ratios(measured)
    found = median_and_iqr(each)
    ratio, spread = found if found else (None, None)
    detail = f"n={len(measured)} pairs"
    if p99:
        detail = f"p99 {percentile(real, 0.99):.1f} / floor p99 {percentile(bare, 0.99):.1f} ms, {detail}"
    met = None if target is None or ratio is None else ratio <= target
    return Row(
        size,
        name,
        unit,
        statistics.median(real),
        statistics.median(bare),
        ratio,
        spread,
        median_interval(each),
        detail,
        target,
        met=met,
    )


def measure(layout: Layout, size: str, counts: Counts) -> list[Row]:
    """The ratio rows of one workspace size (the bare app watches a copy of ``layout``)."""
    bare_layout = fresh_copy(layout, layout.root.parent / f"{layout.root.name}-bare")
    pairs = Pairs()
    for number in range(counts.rounds):
        _round((layout, bare_layout), pairs, number, counts)
    rows = [
        _row(size, "start → first complete screen", "ms", pairs.start, 1.5, p99=True),
        _row(size, "start → start-up work done (CPU < 5 % for 0.5 s)", "ms", pairs.settle),
        _row(size, "write → screen", "ms", pairs.write, 1.5, p99=True),
        _row(size, "approve key → durable and on screen", "ms", pairs.approve, 2.0, p99=True),
        _row(size, "  of which durable", "ms", pairs.durable, p99=True),
        _row(size, "CPU idle", "% of a core", pairs.idle_cpu),
        _row(size, "CPU at 20 writes/s", "% of a core", pairs.busy_cpu),
    ]
    memory = _row(size, "peak memory", "MB", pairs.rss_mb)
    rows.append(
        Row(**{**asdict(memory), "value": max(m for m, _f in pairs.rss_mb), "floor": max(f for _m, f in pairs.rss_mb)})
    )
    if pairs.burst:
        first = max((item[0] for item in pairs.burst), key=lambda v: v if v == v else float("inf"))
        final = max((item[1] for item in pairs.burst), key=lambda v: v if v == v else float("inf"))
        lost = sum(item[2] for item in pairs.burst)
        each = ", ".join(f"{a:.0f}/{b:.0f}" for a, b, _lost in pairs.burst)
        rows.append(
            Row(
                size,
                "burst 1,000 writes/s: first / final update",
                "ms",
                final,
                None,
                detail=f"first max {first:.0f} ms, final max {final:.0f} ms, {lost} lost (each first/final: {each})",
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
        "| size | target | measured (median) | floor (median) | ratio: median of pairs (IQR) | must | |",
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
