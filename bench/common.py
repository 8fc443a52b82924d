"""What every benchmark shares: the machine facts, percentiles, result rows and the
table they are printed in, a process's CPU time and peak memory from /proc, and the
external writers that play an agent."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def machine() -> str:
    """One line: cores, CPU model, Python, Textual, watchfiles, kernel, and the load
    average now (other work on the machine shows in every number)."""
    import textual
    import watchfiles

    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} cores ({model or platform.processor() or '?'}), Python {platform.python_version()}, "
        f"textual {textual.__version__}, watchfiles {watchfiles.__version__}, {platform.system()} {platform.release()}, "
        f"load average {os.getloadavg()[0]:.2f}"
    )


def source() -> str:
    """Which teamdeck was measured: the commit of the checkout it is imported from (and
    whether src/ has uncommitted changes there), or its directory outside git."""
    import teamdeck

    if os.environ.get("TEAMDECK_BENCH_SOURCE"):  # set by run.py --commit
        return os.environ["TEAMDECK_BENCH_SOURCE"]
    root = Path(teamdeck.__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "src", "styles"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return f"teamdeck from {root} (not a git checkout)"
    return f"teamdeck {commit}" + (" + uncommitted changes in src/" if dirty else "") + f" ({root})"


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, int(round(fraction * len(ordered) + 0.5)) - 1))
    return ordered[rank]


@dataclass(frozen=True)
class Result:
    """One row of the table: what was measured, the numbers, the target, and whether
    the target is met (None: no target, a breakdown row)."""

    name: str
    measured: str
    target: str = ""
    met: bool | None = None
    note: str = ""

    @property
    def verdict(self) -> str:
        return {True: "ok", False: "MISS", None: ""}[self.met]


def latency_result(
    name: str,
    samples_ms: list[float],
    median_target: float | None = None,
    p99_target: float | None = None,
    note: str = "",
) -> Result:
    """A row with median / p99 / max of ``samples_ms`` against optional targets."""
    median, p99 = statistics.median(samples_ms), percentile(samples_ms, 0.99)
    measured = f"median {median:.1f} / p99 {p99:.1f} / max {max(samples_ms):.1f} ms (n={len(samples_ms)})"
    targets, met = [], None
    if median_target is not None:
        targets.append(f"median ≤ {median_target:g}")
        met = median <= median_target
    if p99_target is not None:
        targets.append(f"p99 ≤ {p99_target:g} ms")
        met = (met is not False) and p99 <= p99_target
    return Result(name, measured, ", ".join(targets), met, note)


def print_table(title: str, results: list[Result], out: Any = None) -> None:
    """Print ``results`` as a Markdown table under ``title`` and the machine line (the
    load average in each row is the 1-minute one when its target finished)."""
    out = out or sys.stdout
    print(f"\n### {title}\n", file=out)
    print(f"{machine()}; {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}\n", file=out)
    print(f"{source()}\n", file=out)
    print("| benchmark | measured | target | |", file=out)
    print("|---|---|---|---|", file=out)
    for row in results:
        note = f" ({row.note})" if row.note else ""
        print(f"| {row.name} | {row.measured}{note} | {row.target} | {row.verdict} |", file=out)
    out.flush()


# --- a process seen from outside ----------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def peak_rss_mb(pid: int) -> float:
    """The peak resident memory (VmHWM) of process ``pid`` in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# --- an agent writing files ---------------------------------------------------------------


def append_inbox_in_place(path: Path, sender: str, text: str, timestamp: str) -> None:
    """Append one unread message to a Claude Code inbox the way Claude Code does: read
    the array, add the entry, rewrite the whole file in place (no temp file, no fsync).
    The benchmark is the only writer, so the mkdir lock is left out."""
    entries = json.loads(path.read_bytes())
    entries.append({"from": sender, "text": text, "summary": text[:40], "timestamp": timestamp, "read": False})
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(entries, indent=2))


def cpu_ns(pid: int) -> int:
    """CPU time of process ``pid`` in ns, summed over its live threads from
    /proc/PID/task/*/schedstat (nanoseconds, where /proc/PID/stat counts 10 ms ticks:
    a 3 s window of an idle app is a handful of ticks)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended while we read
    return total
