"""bench/bench_supervise.py cannot rot: it runs with a tiny size and prints its table
(the numbers are not checked: they are reported, not asserted)."""

from __future__ import annotations

from support.bench import run_bench


def test_the_supervise_benchmark_runs_with_a_tiny_size() -> None:
    table = run_bench("bench_supervise.py", "2", timeout=120)
    rows = table.splitlines()
    assert rows[0] == "| issues assigned | supervise, median | min |" and rows[2].startswith("| 2 | "), table
