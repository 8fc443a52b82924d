"""How fast the ``teamdeck`` CLI starts: wall time of whole commands, against
``python -c pass`` measured in the same run (the floor no command can go under).

Agents and hooks call ``send``, ``inbox --inject``, ``hook`` and ``report`` on every
turn, so those must start at once; ``--help`` is what a person tries first. The target,
100 ms (bench/README.md, "CLI start"), is for ``--help``, ``send``, ``inbox --inject``
and ``hook``; ``report`` and ``status`` are measured without one. Each row runs the
command N times in a fresh process on a private copy of demo-workspace/ and gives the
median and the fastest run (the machine's other work shows in the median).

Usage::

    python bench/cli.py [--quick] [--runs N] [--src DIR]

``--src DIR`` measures the teamdeck whose package is ``DIR/teamdeck`` (e.g. a ``git
archive`` of another commit's ``src/``) instead of the installed one: the "before"
column of bench/README.md's "CLI start" table was measured that way.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from common import Result

REPO = Path(__file__).resolve().parents[1]
TARGET_MS = 100.0
"""The target of the commands agents run every turn (and of ``--help``)."""


@dataclass(frozen=True)
class Case:
    """One row: a name, the arguments after ``teamdeck``, whether the target applies,
    and what must run (untimed) before each timed run."""

    name: str
    args: tuple[str, ...]
    targeted: bool
    before: tuple[str, ...] = ()
    stdin: bytes = b""


CASES = (
    Case("teamdeck --help", ("--help",), True),
    Case(
        "teamdeck send (demo)",
        ("send", "checkout-revamp", "api-dev", "--summary", "bench", "a message from the bench"),
        True,
    ),
    Case(
        "teamdeck inbox --inject (demo, one unread)",
        ("inbox", "checkout-revamp", "ui-dev", "--inject"),
        True,
        before=("send", "checkout-revamp", "ui-dev", "--summary", "bench", "to be injected"),
    ),
    Case(
        "teamdeck hook (a TeammateIdle payload on stdin)",
        ("hook",),
        True,
        stdin=b'{"hook_event_name": "TeammateIdle", "session_id": "f85b9b20-9dd8-4013-b4be-a89023271306", '
        b'"cwd": "/tmp", "teammate_name": "ui-dev", "team_name": "checkout-revamp"}',
    ),
    Case(
        "teamdeck report (demo, a worker's final output)",
        ("report", "search-index", "profiler", "--status", "completed", "--summary", "bench"),
        False,
    ),
    Case("teamdeck status (demo)", ("status",), False),
)


@dataclass(frozen=True)
class Run:
    """One timed run: wall milliseconds, and the CPU milliseconds (user + system) the
    process used, which a busy machine inflates far less than the wall time."""

    wall: float
    cpu: float


def _timed(argv: list[str], env: dict[str, str], stdin: bytes = b"") -> Run:
    """Run ``argv`` (it must succeed) with ``stdin`` and time it."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, input=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{argv} exited {done.returncode}: {done.stderr.decode(errors='replace')[-400:]}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return Run(wall, cpu)


def _samples(runs: int, once: Callable[[], Run]) -> list[Run]:
    once()  # the first run warms the page cache and writes bytecode: not counted
    return [once() for _ in range(runs)]


def _spread(samples: list[Run]) -> str:
    walls = [run.wall for run in samples]
    cpu = statistics.median(run.cpu for run in samples)
    return f"wall median {statistics.median(walls):.0f} / min {min(walls):.0f} ms, CPU median {cpu:.0f} ms"


def results(quick: bool = False, *, runs: int | None = None, src: Path | None = None) -> list[Result]:
    """One row per command and one for ``python -c pass``, measured interleaved-free
    but in this one run (so the floor and the commands see the same machine)."""
    runs = runs or (2 if quick else 15)
    # PYTHONDONTWRITEBYTECODE (set in some shells and CI images) would make every run
    # compile teamdeck from source, ~40 ms that an installed teamdeck never pays: the
    # warm-up run must leave the bytecode, as pip's install does.
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("TEAMDECK") and key != "PYTHONDONTWRITEBYTECODE"
    }
    if src is not None:
        env["PYTHONPATH"] = str(src)
    teamdeck = [sys.executable, "-m", "teamdeck"]
    floor = _samples(runs, lambda: _timed([sys.executable, "-c", "pass"], env))
    rows: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="teamdeck-bench-cli-") as scratch:
        workspace = Path(scratch) / "demo"
        shutil.copytree(REPO / "demo-workspace", workspace)
        here = [*teamdeck, "--workspace", str(workspace)]
        for case in CASES:

            def once(case: Case = case) -> Run:
                if case.before:
                    _timed([*here, *case.before], env)
                return _timed([*here, *case.args], env, case.stdin)

            samples = _samples(runs, once)
            median = statistics.median(run.wall for run in samples)
            rows.append(
                Result(
                    case.name,
                    f"{_spread(samples)} (n={runs}; load {os.getloadavg()[0]:.1f})",
                    f"≤ {TARGET_MS:.0f} ms" if case.targeted else "",
                    median <= TARGET_MS if case.targeted else None,
                    "python -m teamdeck" + (f", PYTHONPATH={src}" if src else ""),
                )
            )
    rows.append(
        Result("  python -c pass (the floor, same run)", f"{_spread(floor)} (n={runs})", "", None, sys.executable)
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two runs each: the numbers mean nothing")
    parser.add_argument("--runs", type=int, help="runs per row (default 15)")
    parser.add_argument("--src", type=Path, help="measure the teamdeck package in DIR instead of the installed one")
    options = parser.parse_args()
    rows = results(options.quick, runs=options.runs, src=options.src)
    print("| benchmark | measured | target | |\n|---|---|---|---|")
    for row in rows:
        print(f"| {row.name} | {row.measured} | {row.target} | {row.verdict} |")


if __name__ == "__main__":
    main()
