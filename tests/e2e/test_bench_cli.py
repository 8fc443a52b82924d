"""bench/cli.py still runs (its numbers are not checked: the targets live in bench/README.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_cli_start_benchmark_runs_every_row() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "cli.py"), "--quick", "--runs", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and "---" not in line][1:]
    names = [row.split(" | ")[0].strip("| ").strip() for row in rows]
    assert names == [
        "teamdeck --help",
        "teamdeck send (demo)",
        "teamdeck inbox --inject (demo, one unread)",
        "teamdeck hook (a TeammateIdle payload on stdin)",
        "teamdeck report (demo, a worker's final output)",
        "teamdeck status (demo)",
        "python -c pass (the floor, same run)",
    ]
    assert all("wall median" in row for row in rows)
