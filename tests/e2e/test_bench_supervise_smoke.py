"""bench/bench_supervise.py cannot rot: it runs with a tiny size and prints its table
(the numbers are not checked: they are reported, not asserted)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_supervise_benchmark_runs_with_a_tiny_size() -> None:
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "bench_supervise.py"), "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    rows = run.stdout.splitlines()
    assert rows[0] == "| issues assigned | supervise, median | min |" and rows[2].startswith("| 2 | "), run.stdout
