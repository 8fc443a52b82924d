"""CPU of the live app idle and at 20 inbox writes a second, per thread kind, for
comparing two trees in alternation (``--src DIR`` puts DIR's teamdeck first).

Usage::

    python bench/cpu_at_writes.py [--size 1×] [--rounds 2] [--window 5] [--src OTHER/src]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from generate import Layout, generate
from run import SCALE
from targets_ratio import _cpu_percent, _launch, _settle


def session(layout: Layout, copy: Path, window: float, src: str | None) -> tuple[float, float]:
    """(idle %, busy %) of one app session on a fresh copy of ``layout``."""
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(layout.root, copy, symlinks=True)
    moved = Layout(**{**layout.__dict__, "root": copy})
    saved = os.environ.get("PYTHONPATH")
    if src:
        os.environ["PYTHONPATH"] = src
    try:
        term, _first = _launch(moved, False, 0)
    finally:
        if src:
            os.environ.pop("PYTHONPATH")
        if saved is not None:
            os.environ["PYTHONPATH"] = saved
    with term:
        _settle(term, 1.0)
        idle = _cpu_percent(term, window, None)
        busy = _cpu_percent(term, window, moved.inboxes())
    shutil.rmtree(copy, ignore_errors=True)
    return idle, busy


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
        results: dict[str | None, list[tuple[float, float]]] = {tree: [] for tree in trees}
        for _ in range(args.rounds):
            for tree in trees:
                results[tree].append(session(layout, root / "copy", args.window, tree))
                idle, busy = results[tree][-1]
                print(f"{tree or 'this tree'}: idle {idle:.2f} %, busy {busy:.2f} % (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
        print(f"size {args.size}, {args.rounds} rounds, {args.window} s windows; load {os.getloadavg()}")
        for tree, pairs in results.items():
            idle = statistics.median(p[0] for p in pairs)
            busy = statistics.median(p[1] for p in pairs)
            print(f"{tree or 'this tree':40} idle {idle:5.2f} %  at 20 writes/s {busy:5.2f} %  ({', '.join(f'{b:.1f}' for _i, b in pairs)})")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
