"""CPU of the live app idle and at 20 inbox writes a second, per thread kind, for
comparing two trees in alternation (``--src DIR`` puts DIR's teamdeck first).

Usage::

    python bench/cpu_at_writes.py [--size 1×] [--rounds 2] [--window 5] [--src OTHER/src]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from generate import Layout, generate
from run import SCALE
from targets_ratio import _cpu_percent, _launch, _settle


def _per_thread(pid: int, names: Path) -> dict[str, int]:
    """CPU ns of each thread of ``pid`` by its name (``main`` for the process's own)."""
    known = {pid: "main"}
    if names.exists():
        for line in names.read_text().splitlines():
            tid, _, name = line.partition(" ")
            known[int(tid)] = name
    used: dict[str, int] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        name = known.get(int(task.name), "other")
        try:
            used[name] = used.get(name, 0) + int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return used


def session(layout: Layout, copy: Path, window: float, src: str | None) -> tuple[float, float, float]:
    """(idle %, busy %, ms of garbage collection over the whole session) of one app
    session on a fresh copy of ``layout``."""
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(layout.root, copy, symlinks=True)
    moved = Layout(**{**layout.__dict__, "root": copy})
    saved = os.environ.get("PYTHONPATH")
    names = copy.with_suffix(".threads")
    names.unlink(missing_ok=True)
    os.environ["TEAMDECK_BENCH_THREADS"] = str(names)
    if src:
        os.environ["PYTHONPATH"] = src
    try:
        term, _first = _launch(moved, False, 0, "--stats", str(copy.with_suffix(".gc.json")))
    finally:
        del os.environ["TEAMDECK_BENCH_THREADS"]
        if src:
            os.environ.pop("PYTHONPATH")
        if saved is not None:
            os.environ["PYTHONPATH"] = saved
    with term:
        _settle(term, 1.0)
        idle = _cpu_percent(term, window, None)
        before = _per_thread(term.pid, names)
        busy = _cpu_percent(term, window, moved.inboxes())
        after = _per_thread(term.pid, names)
        split = ", ".join(
            f"{name} {(after[name] - before.get(name, 0)) / 1e9 / window * 100:.1f}"
            for name in sorted(after, key=lambda name: before.get(name, 0) - after[name])
        )
        total = (sum(after.values()) - sum(before.values())) / 1e9 / window * 100
        print(f"  at 20 writes/s by thread (% of a core): {split}; sum {total:.1f}", file=sys.stderr)
    shutil.rmtree(copy, ignore_errors=True)
    stats = copy.with_suffix(".gc.json")
    gc_ms = json.loads(stats.read_text())["gc_total_ms"] if stats.exists() else float("nan")
    stats.unlink(missing_ok=True)
    return idle, busy, gc_ms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1×", choices=list(SCALE))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--window", type=float, default=5.0)
    parser.add_argument("--src", action="append", default=[], help="another tree's src/ (repeatable)")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="teamdeck-cpu-"))
    try:
        layout = generate(root / "ws", **SCALE[args.size])
        trees = [None, *args.src]
        results: dict[str | None, list[tuple[float, float, float]]] = {tree: [] for tree in trees}
        for _ in range(args.rounds):
            for tree in trees:
                results[tree].append(session(layout, root / "copy", args.window, tree))
                idle, busy, gc_ms = results[tree][-1]
                print(
                    f"{tree or 'this tree'}: idle {idle:.2f} %, busy {busy:.2f} %, GC {gc_ms:.0f} ms"
                    f" (load {os.getloadavg()[0]:.1f})",
                    file=sys.stderr,
                )
        print(f"size {args.size}, {args.rounds} rounds, {args.window} s windows; load {os.getloadavg()}")
        for tree, pairs in results.items():
            idle = statistics.median(p[0] for p in pairs)
            busy = statistics.median(p[1] for p in pairs)
            gc_ms = statistics.median(p[2] for p in pairs)
            each = ", ".join(f"{p[1]:.1f}" for p in pairs)
            print(
                f"{tree or 'this tree':40} idle {idle:5.2f} %  at 20 writes/s {busy:5.2f} % ({each})  GC {gc_ms:.0f} ms"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
