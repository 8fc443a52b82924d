"""Running a benchmark script of bench/ as a person does, for the tests that keep them
from rotting (the numbers are reported by the scripts, never checked)."""

from __future__ import annotations

import subprocess
import sys

from support.locations import REPO


def run_bench(script: str, *args: str, timeout: float) -> str:
    """``python bench/<script> ARGS``; its table (stdout), once it exited 0."""
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), *args], capture_output=True, text=True, timeout=timeout
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout
