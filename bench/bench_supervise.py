"""The automatic step's cost with Gitea work: one ``supervise()`` over
a workspace with N issues assigned to an agent (none stalled yet), as ``teamdeck run``
takes it every 5 s. Prints a table; asserts nothing.

Usage::

    python bench/bench_supervise.py [N ...]     # default: 0 100 500
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from teamdeck.protocol.autowork.step import supervise
from teamdeck.protocol.forge.deliveries import receive
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace

ASSIGNED = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "gitea" / "issues-opened-sub-101"
ROUNDS = 7


def _workspace(root: Path, issues: int) -> Workspace:
    """Team ``quant`` with the assignee, and ``issues`` copies of the fixture's assignment."""
    ws = Workspace.at(root, actor="human:bench")
    create_team(ws, "quant")
    add_member(ws, "quant", "zhangfei-dev")
    (root / ".teamdeck.yaml").write_text("autowork:\n  stallAfterSeconds: 3600\n")
    headers = json.loads((ASSIGNED / "headers.json").read_text())
    headers.pop("X-Gitea-Signature", None)  # receive() checks no signature: the webhook front does
    payload = json.loads((ASSIGNED / "body.json").read_text())
    for number in range(1000, 1000 + issues):
        payload["issue"]["number"] = number
        outcome = receive(ws, {**headers, "X-Gitea-Delivery": f"bench-{number}"}, json.dumps(payload).encode())
        assert outcome.outcome == "applied", outcome
    return ws


def main(sizes: list[int]) -> None:
    print("| issues assigned | supervise, median | min |")
    print("|---:|---:|---:|")
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            ws = _workspace(Path(tmp), size)
            supervise(ws, isolation="thread")  # the first look reads every issue
            times = []
            for _ in range(ROUNDS):
                start = time.perf_counter()
                supervise(ws, isolation="thread")
                times.append(time.perf_counter() - start)
        print(f"| {size} | {statistics.median(times) * 1000:.1f} ms | {min(times) * 1000:.1f} ms |")


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [0, 100, 500])
