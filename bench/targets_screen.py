"""The on-screen performance targets, measured on the real app in a pty
(bench/screen.py) with the watcher on, while this process plays the agents.

What is on screen is read from the bytes the app writes to its terminal: the overview
line's ``<n> unread`` and ``<n> decisions waiting`` change with every inbox message
and every decision, so each change has a value of its own to wait for.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import time
from pathlib import Path

from common import Result, append_inbox_in_place, cpu_seconds, latency_result, peak_rss_mb
from generate import Layout
from screen import Terminal

from teamdeck.tui.panels.decisions.panel import ANSWER_QUIET_S

STAMP = "2026-03-01T12:00:00.000Z"
UNREAD = re.compile(rb"(?<![0-9])([0-9]+) unread")
WAITING = re.compile(rb"(?<![0-9])([0-9]+) (?:decisions? )?waiting")
"""``250 decisions waiting``, or ``250 waiting`` where the overview line is compact
(too long for the terminal: 100 teams and 2,000 members at 120 columns)."""
SETTLE_S = 1.5
"""After the first screen, let start-up work finish (the watcher adds its inotify
watches on its own thread) before changing files; ``--quick`` shortens it."""


def _value(pattern: re.Pattern[bytes], value: int) -> re.Pattern[bytes]:
    return re.compile(pattern.pattern.replace(rb"([0-9]+)", str(value).encode()))


def _shown(term: Terminal, pattern: re.Pattern[bytes]) -> int:
    """The newest value of ``pattern`` on screen (waits for the first one)."""
    term.wait_for(pattern, 0, 60)
    return int(term.matches(pattern)[-1][1].group(1))


def _start(layout: Layout, settle_s: float) -> tuple[Terminal, int]:
    """The app on ``layout``, its first screen drawn and ``settle_s`` passed; the
    unread count it shows."""
    term = Terminal(layout.root)
    try:
        term.wait_for(UNREAD, 0, 60)
        time.sleep(settle_s)
        return term, _shown(term, UNREAD)
    except BaseException:
        term.close()
        raise


def _pace(until: float) -> None:
    """Sleep until ``perf_counter`` reaches ``until`` (the last millisecond spinning)."""
    while True:
        left = until - time.perf_counter()
        if left <= 0:
            return
        time.sleep(left - 0.001 if left > 0.002 else 0)


def writes_to_screen(
    term: Terminal, layout: Layout, changes: int, seed: int, counter: re.Pattern[bytes] = UNREAD
) -> list[float]:
    """An agent appends a message to a random inbox (Claude Code's in-place rewrite),
    ``changes`` times, 20-60 ms apart; each timed from just before the write until the
    screen shows it: ``<n+1> unread`` on the real app, any new ``counter`` value
    (``<n> batches``) on the bare app, which shows what its watcher saw."""
    rng = random.Random(seed)
    inboxes = layout.inboxes()
    time.sleep(0.3)
    total = _shown(term, counter)
    samples = []
    for n in range(changes):
        path = rng.choice(inboxes)
        mark = term.mark()
        started = time.perf_counter()
        append_inbox_in_place(path, "bench", f"latency {seed}.{n}", STAMP)
        total += 1
        wanted = _value(UNREAD, total) if counter is UNREAD else counter
        arrived, _match = term.wait_for(wanted, mark, 10)
        samples.append((arrived - started) * 1000)
        time.sleep(rng.uniform(0.02, 0.06))
    return samples


def write_to_screen(layout: Layout, changes: int, settle_s: float = SETTLE_S) -> Result:
    """:func:`writes_to_screen` on the real app, as one row."""
    term, _total = _start(layout, settle_s)
    with term:
        samples = writes_to_screen(term, layout, changes, 3)
    return latency_result(
        "external write → visible on screen (overview line, pty)",
        samples,
        20,
        40,
        note=f"{layout.files} files watched, {layout.members} members, {len(layout.tasks)} tasks",
    )


def burst_rounds(term: Terminal, layout: Layout, writes: int, bursts: int) -> list[tuple[float, float, int]]:
    """``bursts`` times ``writes`` inbox appends spread evenly over one second,
    round-robin over every inbox, on the running app ``term``. Returns, per burst: first
    write → first changed count on screen, last write → the exact final count on screen
    (NaN if it never came), and how many messages the final count is short of (lost)."""
    inboxes = layout.inboxes()
    found = []
    time.sleep(0.3)
    total = _shown(term, UNREAD)
    for round_ in range(bursts):
        mark = term.mark()
        begin = time.perf_counter()
        last_write = begin
        for n in range(writes):
            _pace(begin + n / writes)
            append_inbox_in_place(inboxes[(n + round_) % len(inboxes)], "bench", f"burst {round_}.{n}", STAMP)
            last_write = time.perf_counter()
        expected = total + writes
        try:
            final_at, _match = term.wait_for(_value(UNREAD, expected), mark, 10)
            final, lost = (final_at - last_write) * 1000, 0
        except TimeoutError:
            final, lost = float("nan"), expected - _shown(term, UNREAD)
        changed = [at for at, match in term.matches(UNREAD, mark) if int(match.group(1)) != total]
        found.append(((changed[0] - begin) * 1000 if changed else float("nan"), final, lost))
        total = _shown(term, UNREAD)
        time.sleep(0.5)
    return found


def burst(layout: Layout, writes: int, bursts: int, settle_s: float = SETTLE_S) -> list[Result]:
    """``writes`` inbox appends spread evenly over one second, round-robin over every
    inbox; the first change and the final count on screen, and nothing lost: the
    final ``<n> unread`` equals the messages written (every file's last state read)."""
    term, _total = _start(layout, settle_s)
    with term:
        found = burst_rounds(term, layout, writes, bursts)
    first_ms = [first for first, _final, _lost in found if first == first]
    final_ms = [final for _first, final, _lost in found if final == final]
    lost = [item[2] for item in found]
    note = f"{writes} writes in 1 s over {len(layout.inboxes())} inboxes, {bursts} bursts"
    worst_first = max(first_ms, default=float("nan"))
    worst_final = max(final_ms, default=float("nan"))
    return [
        Result(
            "burst: messages lost (final count on screen vs written)",
            f"{sum(lost)} lost in {bursts} bursts",
            "0",
            sum(lost) == 0,
            note,
        ),
        Result(
            "burst: first write → first update on screen",
            f"max {worst_first:.0f} ms (each: {', '.join(f'{v:.0f}' for v in first_ms)})",
            "≤ 100 ms",
            worst_first <= 100,
        ),
        Result(
            "burst: last write → final state on screen",
            f"max {worst_final:.0f} ms (each: {', '.join(f'{v:.0f}' for v in final_ms)})",
            "≤ 150 ms",
            bool(final_ms) and worst_final <= 150,
        ),
    ]


def _poll(check, timeout: float = 10.0) -> float:
    deadline = time.perf_counter() + timeout
    while not check():
        if time.perf_counter() > deadline:
            raise TimeoutError("not on disk in time")
        time.sleep(0.0005)
    return time.perf_counter()


APPROVED = b'"type":"gate.approved","actor":'


def approvals(
    term: Terminal, layout: Layout, gates: list[tuple[str, str]]
) -> tuple[list[float], list[float], list[float]]:
    """``gates`` (each the oldest waiting one, under the cursor) approved on the running
    app: ``a`` opens the confirm bar, Enter confirms (timed from Enter) until the
    ``gate.approved`` event and the gate's new state in task.yaml are on disk, and until
    ``<n-1> decisions waiting`` is on screen. Returns (both, disk, screen) in ms.

    After an answer the queue selects nothing and ignores answer keys for a moment (a
    letter typed later must not land on a decision nobody read): as a person then does,
    ``j`` selects the decision now in its place, and the next ``a`` waits that moment out
    (outside the time measured)."""
    both_ms, disk_ms, screen_ms = [], [], []
    waiting = _shown(term, WAITING)
    for task_id, gate_id in gates:
        events = layout.root / "tasks" / task_id / "events.jsonl"
        task_yaml = layout.root / "tasks" / task_id / "task.yaml"
        before = events.read_bytes().count(APPROVED)
        mark = term.mark()
        term.send(b"a")
        term.wait_for(re.compile(rb"Note \(optional\)"), mark, 10)
        time.sleep(0.01)
        mark = term.mark()
        pressed = term.send(b"\r")
        try:
            on_disk = _poll(
                lambda: events.read_bytes().count(APPROVED) > before and _gate_state(task_yaml, gate_id) == "approved",
                30,
            )
        except TimeoutError:
            raise TimeoutError(
                f"{task_id} {gate_id} not approved on disk in 30 s; the screen got: {term.text(mark)[-1500:]!r}"
            ) from None
        waiting -= 1
        shown, _match = term.wait_for(_value(WAITING, waiting), mark, 10)
        disk_ms.append((on_disk - pressed) * 1000)
        screen_ms.append((shown - pressed) * 1000)
        both_ms.append((max(on_disk, shown) - pressed) * 1000)
        term.send(b"j")
        time.sleep(ANSWER_QUIET_S + 0.1)
    return both_ms, disk_ms, screen_ms


def approve_key(layout: Layout, changes: int, settle_s: float = SETTLE_S) -> list[Result]:
    """:func:`approvals` of the ``changes`` oldest gates, as rows."""
    term, _unread = _start(layout, settle_s)
    with term:
        both_ms, disk_ms, screen_ms = approvals(term, layout, layout.gates[:changes])
    return [
        latency_result(
            "key action (approve, Enter) → event + task.yaml on disk and row gone on screen", both_ms, 30, 100
        ),
        latency_result("  of which: Enter → event and task.yaml on disk", disk_ms),
        latency_result("  of which: Enter → decisions waiting count on screen", screen_ms),
    ]


def _gate_state(task_yaml: Path, gate_id: str) -> str | None:
    import yaml

    try:
        task = yaml.load(task_yaml.read_bytes(), Loader=yaml.CSafeLoader)
    except (OSError, yaml.YAMLError):
        return None
    return next((gate.get("state") for gate in task.get("gates", []) if gate.get("id") == gate_id), None)


def idle_cpu(layout: Layout, window_s: float, settle_s: float = SETTLE_S) -> list[Result]:
    """CPU time of the app process (all threads, from /proc) over ``window_s`` with
    nothing changing, then with 20 inbox writes per second."""
    term, _unread = _start(layout, settle_s)
    inboxes = layout.inboxes()
    with term:
        before = cpu_seconds(term.pid)
        time.sleep(window_s)
        idle = (cpu_seconds(term.pid) - before) / window_s * 100
        before = cpu_seconds(term.pid)
        begin = time.perf_counter()
        for n in range(int(window_s * 20)):
            _pace(begin + n / 20)
            append_inbox_in_place(inboxes[n % len(inboxes)], "bench", f"cpu {n}", STAMP)
        _pace(begin + window_s)
        busy = (cpu_seconds(term.pid) - before) / window_s * 100
    note = f"{layout.files} files watched, {window_s:g} s windows"
    return [
        Result("idle CPU of the app", f"{idle:.2f} % of a core", "≤ 1 %", idle <= 1, note),
        Result("CPU of the app at 20 changes/s", f"{busy:.1f} % of a core", "≤ 10 %", busy <= 10, note),
    ]


def start(layout: Layout, runs: int, label: str, settle_s: float = SETTLE_S) -> list[Result]:
    """Process start → the first complete screen (the overview line with every
    member counted and the first gate row, drawn in one frame); the app's peak RSS and
    longest GC pause over start-up (imports included) and ``settle_s`` after it, and the
    longest one after the first frame (pauses over 5 ms are timestamped)."""
    firsts, peaks, pauses, later = [], [], [], []
    members = f"{layout.members} members".encode()
    first_gate = layout.gates[0][0].encode() if layout.gates else b"no decisions waiting"  # its task's id
    for _ in range(runs):
        with tempfile.NamedTemporaryFile(suffix=".json") as stats_file:
            term = Terminal(layout.root, "--stats", stats_file.name)
            with term:
                at_overview, _m = term.wait_for(members, 0, 60)
                at_rows, _m = term.wait_for(first_gate, 0, 60)
                first = max(at_overview, at_rows)
                firsts.append((first - term.started) * 1000)
                time.sleep(settle_s)
                peaks.append(peak_rss_mb(term.pid))
            stats = json.loads(Path(stats_file.name).read_text() or "{}")
            pauses.append(stats.get("gc_max_ms", float("nan")))
            later.append(max((ms for at, ms in stats.get("gc_long", []) if at > first), default=0.0))
    firsts.sort()
    median = firsts[len(firsts) // 2]
    what = f"{layout.members} members, {len(layout.tasks)} tasks, {label}"
    return [
        Result(
            f"start → first complete screen ({what})",
            f"median {median:.0f} / max {max(firsts):.0f} ms (n={runs})",
            "≤ 500 ms",
            median <= 500,
        ),
        Result(
            f"  peak memory of the app ({label})", f"max {max(peaks):.0f} MB (VmHWM)", "≤ 150 MB", max(peaks) <= 150
        ),
        Result(
            f"  longest GC pause in the app ({label})",
            f"max {max(pauses):.1f} ms; after the first frame {max(later):.1f} ms",
            "≤ 50 ms",
            max(pauses) <= 50,
            "imports included: the process is timed from its start",
        ),
    ]
