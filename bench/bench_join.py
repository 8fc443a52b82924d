"""Join and gate costs: joining N workers (first join, a no-op rerun, a rerun after one
output changed), deciding a gate, validating the workspace, and the `teamdeck join`
process end to end. Prints a table; asserts nothing.

Usage::

    python bench/bench_join.py [DIR]     # DIR: where to write (default: a temp dir)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import Result, latency_result, print_table

from teamdeck.protocol.checks.validate import validate_workspace
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import join_task
from teamdeck.store.workspace import Workspace

WORKERS = (10, 100, 500)


def _write(ws: Workspace, task_id: str, agent: str, index: int, run: int = 0) -> None:
    folder = ws.agents_dir(task_id) / agent / "artifacts"
    folder.mkdir(parents=True, exist_ok=True)
    blocked = index % 5 == 0
    output = {
        "status": "blocked" if blocked else "completed",
        "summary": f"worker {agent} run {run}: " + "did things. " * 20,
        "questions": [f"Question {n} for {agent}?" for n in range(3)] if blocked else [],
        "nextActions": ["review", "merge"],
        "finishedAt": "2026-03-01T12:00:00Z",
    }
    (folder / "final.json").write_text(json.dumps(output))


def _ms(function) -> float:
    start = time.perf_counter()
    function()
    return (time.perf_counter() - start) * 1000


def main(argv: list[str]) -> int:
    base = Path(argv[1]) if len(argv) > 1 else Path(tempfile.mkdtemp(prefix="teamdeck-bench-join-"))
    results: list[Result] = []
    try:
        for count in WORKERS:
            root = base / f"ws-{count}"
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir(parents=True)
            ws = Workspace.at(root, actor="human:bench")
            create_task(ws, "t1", "bench")
            for index in range(count):
                _write(ws, "t1", f"w{index:04d}", index)
            results.append(
                Result(
                    f"join, {count} workers, first (opens {count // 5} gates)",
                    f"{_ms(lambda: join_task(ws, 't1')):.0f} ms",
                )
            )
            results.append(
                latency_result(
                    f"join, {count} workers, nothing changed", [_ms(lambda: join_task(ws, "t1")) for _ in range(5)]
                )
            )
            _write(ws, "t1", "w0001", 1, run=1)
            results.append(
                Result(f"join, {count} workers, one output changed", f"{_ms(lambda: join_task(ws, 't1')):.0f} ms")
            )
            gates = [f"g-w{index:04d}-1" for index in range(0, min(count, 50), 5)]
            results.append(
                latency_result(
                    f"gate approve ({count} workers in the task)",
                    [_ms(lambda gate=gate: decide_gate(ws, "t1", gate, "approve")) for gate in gates],
                )
            )
            results.append(
                Result(f"validate workspace ({count} workers)", f"{_ms(lambda: validate_workspace(ws)):.0f} ms")
            )
        root = base / "ws-10"
        env = {**os.environ, "TEAMDECK_WORKSPACE": ""}
        command = [sys.executable, "-m", "teamdeck", "--workspace", str(root), "join", "t1"]
        samples = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=env)
            samples.append((time.perf_counter() - start) * 1000)
        results.append(latency_result("`teamdeck join` process, 10 workers, nothing changed", samples))
    finally:
        if len(argv) <= 1:
            shutil.rmtree(base, ignore_errors=True)
    print_table("Join and gates", results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
