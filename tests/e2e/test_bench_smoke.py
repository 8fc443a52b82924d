"""The benchmarks cannot rot: every one of them runs with tiny sizes (the numbers are
not checked: targets live in bench/README.md, not in timed tests), and what the
generator writes is a valid workspace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ROWS = (
    "external write → visible on screen",
    "watcher only: file write → batch",
    "burst: messages lost",
    "burst: first write",
    "burst: last write",
    "start → first complete screen",
    "peak memory of the app",
    "longest GC pause in the app",
    "key action (approve, Enter)",
    "idle CPU of the app",
    "CPU of the app at 20 changes/s",
    "view.refresh: one inbox changed",
    "view.refresh: one task.yaml changed",
    "view.build_snapshot",
    "decide_gate(approve), durable",
    "decide_gate(approve) in the task with",
)


@pytest.mark.slow
def test_every_benchmark_runs_with_tiny_sizes(tmp_path: Path) -> None:
    workspace = tmp_path / "generated"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "generate.py"),
            str(workspace),
            "--teams",
            "2",
            "--members",
            "5",
            "--tasks",
            "3",
            "--files",
            "30",
            "--gates",
            "4",
            "--big-log",
            "500",
        ],
        check=True,
        timeout=60,
    )
    validate = subprocess.run(
        [sys.executable, "-m", "teamdeck", "--workspace", str(workspace), "validate"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert validate.returncode == 0, validate.stdout + validate.stderr

    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run.py"), "--quick", "--dir", str(tmp_path / "bench")],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    table = run.stdout
    missing = [row for row in ROWS if row not in table]
    assert not missing, f"rows missing from the table: {missing}\n{table}"
    assert "nan" not in table, table
