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
    # the ratio table: each target against its floor, measured in the same run
    "Each target against its floor",
    "then start-up work done",
    "| write → screen |",
    "approve key → durable and on screen",
    "CPU at 20 writes/s",
    "The CLI and the runtime",
    "runner: inbox write → agent process started",
    "runner: idle CPU",
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


@pytest.mark.slow
def test_compare_prints_each_ratio_on_both_sides(tmp_path: Path) -> None:
    """``--compare REF`` measures REF's teamdeck and the working tree's and prints one
    row per ratio with both values and the change (HEAD against itself: the code is the
    same, the numbers are not checked)."""
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run.py"), "--compare", "HEAD", "--quick", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert any(line.startswith("### HEAD (teamdeck ") and "against the working tree" in line for line in lines), (
        run.stdout
    )
    rows = [line for line in lines if line.startswith("| 1× |")]
    names = {row.split("|")[2].strip() for row in rows}
    assert {"start → first complete screen", "write → screen", "approve key → durable and on screen"} <= names, rows
    assert all(row.count("×") >= 3 and "%" in row for row in rows), rows
