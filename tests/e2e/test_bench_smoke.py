"""The benchmarks cannot rot: every one of them runs with tiny sizes (the numbers are
not checked: targets live in bench/README.md, not in timed tests), and what the
generator writes is a valid workspace."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.bench import run_bench
from support.sshd import need_sshd
from support.web import CHROMIUM

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
    "start → start-up work done",
    "| write → screen |",
    "approve key → durable and on screen",
    "CPU at 20 writes/s",
    "The CLI and the runtime",
    "runner: inbox write → agent process started",
    "runner: idle CPU",
    "B2: ",
    "S7: sanitize(10 MB of x)",
    "C18: wait_for_agent(timeout_s=2)",
    # bench/rows_web.py, in Chromium (without it, the row says it was skipped; .ci/run installs it)
    *(("disk write → visible in the browser", "browser / TUI, 1×") if Path(CHROMIUM).exists() else ()),
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


@pytest.mark.slow
def test_repeat_prints_each_table_and_whether_the_runs_agree(tmp_path: Path) -> None:
    """``--repeat 2`` measures the ratio table twice and prints, per row, both runs'
    median ratios with their IQR and a verdict (the numbers are not checked)."""
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run.py"), "ratios", "--quick", "--repeat", "2", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "## Run 1 of 2" in run.stdout and "## Run 2 of 2" in run.stdout, run.stdout
    agreement = run.stdout.split("Do the runs agree within the spread they report?")[1]
    rows = [line for line in agreement.splitlines() if line.startswith("| 1× |")]
    names = {row.split("|")[2].strip() for row in rows}
    assert {"start → first complete screen", "write → screen", "approve key → durable and on screen"} <= names
    verdicts = {"agree", "agree one way", "within 5 %", "overlap", "DIFFER"}
    assert all(row.rstrip(" |").rsplit("|", 1)[1].strip() in verdicts for row in rows), rows


def test_two_runs_agree_when_each_median_lies_in_the_others_iqr() -> None:
    """bench/pairs.py: a row's ratio is the median of its pairs' ratios, its spread their
    interquartile range, and two runs agree when each median lies in the other's."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from pairs import median_and_iqr, ratios, verdict
    finally:
        sys.path.remove(str(REPO / "bench"))
    assert ratios([(10.0, 5.0), (9.0, 0.0), (3.0, 3.0)]) == [2.0, 1.0]  # a zero floor is left out
    assert median_and_iqr([1.0, 2.0, 3.0, 4.0, 5.0]) == (3.0, (2.0, 4.0))
    assert median_and_iqr([]) is None

    def row(ratio: float, low: float, high: float) -> dict:
        return {"ratio": ratio, "spread": (low, high)}

    assert verdict(row(3.0, 2.0, 4.0), row(3.5, 2.5, 5.0)) == "agree"
    assert verdict(row(3.0, 2.9, 3.1), row(3.5, 2.5, 5.0)) == "agree one way"
    assert verdict(row(2.40, 2.39, 2.41), row(2.45, 2.44, 2.46)) == "within 5 %"
    assert verdict(row(2.0, 1.0, 3.0), row(5.0, 2.9, 6.0)) == "overlap"
    assert verdict(row(2.0, 1.9, 2.1), row(5.0, 4.0, 6.0)) == "DIFFER"


def test_the_median_interval_is_the_order_statistics_of_the_binomial() -> None:
    """bench/pairs.py: the median's 95 % interval is x(k)..x(n+1-k), k the largest rank
    with P(Binomial(n, 1/2) < k) <= 2.5 % (tables: n=30 gives ranks 10 and 21, n=24 7
    and 18); fewer than six values give their whole range; two runs are judged by it
    when a row has it."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from pairs import median_interval, verdict
    finally:
        sys.path.remove(str(REPO / "bench"))
    assert median_interval([float(v) for v in range(30, 0, -1)]) == (10.0, 21.0)
    assert median_interval([float(v) for v in range(1, 25)]) == (7.0, 18.0)
    assert median_interval([4.0, 1.0, 3.0, 2.0]) == (1.0, 4.0)
    assert median_interval([]) is None
    narrow = {"ratio": 3.0, "spread": (2.9, 3.1), "interval": (2.0, 4.0)}
    assert verdict(narrow, {"ratio": 3.5, "spread": (3.4, 3.6), "interval": (2.5, 5.0)}) == "agree"


@pytest.mark.slow
def test_remote_rows_run_on_the_hosts_screen_over_a_real_sshd() -> None:
    """bench/rows_remote.py --quick: both rows measured on the hosts TUI in a pty, over
    a real sshd and without it (the numbers are not checked)."""
    need_sshd()
    table = run_bench("rows_remote.py", "--quick", timeout=240)
    for row in ("remote write → on screen, over ssh / without, 1×", "remote approve → durable and on screen"):
        assert f"| {row}" in table, table
    assert "no pairs" not in table and "nan" not in table, table
