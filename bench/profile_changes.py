"""What one inbox change (or one approval) costs the live app, thread by thread and
function by function.

The app (``bench/app_main.py`` under a pty, as the ratio table runs it) is started twice
on fresh copies of the same generated workspace with every thread under its own cProfile
(``$TEAMDECK_BENCH_PROFILE_THREADS``): once left idle for the window, once with the
window's inbox writes at 20 a second (as the "CPU at 20 writes/s" row). The difference
of the two profiles, divided by the number of writes, is what a change costs: start-up
and idle ticking fall out. Call counts per change do not depend on the machine's load,
so they are the numbers to compare before and after a change of the code; the times
(inflated by cProfile, several times over on a loaded machine) say where to look.
``--approvals N`` makes the busy session approve the N oldest gates with the key (as the
ratio table's approve row does) instead of writing to inboxes: what one approval costs.

Usage::

    python bench/profile_changes.py [--size 1×|3×|10×] [--writes 200 | --approvals 30] [--top 25] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import pstats
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import append_inbox_in_place, cpu_ns
from generate import Layout, generate
from run import SCALE
from targets_ratio import STAMP, _launch, _pace, _settle
from targets_screen import approvals

Key = tuple[str, int, str]


def _session(layout: Layout, copy: Path, writes: int, profiles: Path, approve: int = 0) -> float:
    """One session on a fresh copy of ``layout``; the app's CPU % over the window (or
    over ``approve`` approvals, when given)."""
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(layout.root, copy, symlinks=True)
    moved = Layout(**{**layout.__dict__, "root": copy})
    os.environ["TEAMDECK_BENCH_PROFILE_THREADS"] = str(profiles)
    try:
        term, _first = _launch(moved, False, 0)
    finally:
        del os.environ["TEAMDECK_BENCH_PROFILE_THREADS"]
    with term:
        _settle(term, 1.0)
        if approve:
            time.sleep(2.0)  # the tabs' first activation takes the focus to the list (under cProfile: late)
            before, begin = cpu_ns(term.pid), time.perf_counter()
            approvals(term, moved, moved.gates[:approve])
            return (cpu_ns(term.pid) - before) / 1e9 / (time.perf_counter() - begin) * 100
        inboxes = moved.inboxes()
        window = max(writes, 20) / 20
        before, begin = cpu_ns(term.pid), time.perf_counter()
        for n in range(writes):
            _pace(begin + n / 20)
            append_inbox_in_place(inboxes[n % len(inboxes)], "bench", f"cpu {n}", STAMP)
        _pace(begin + window)
        used = (cpu_ns(term.pid) - before) / 1e9 / window * 100
    time.sleep(0.5)
    return used


def _by_thread(profiles: Path) -> dict[str, pstats.Stats]:
    """The dumped profiles, merged per thread kind (the name without its number)."""
    merged: dict[str, pstats.Stats] = {}
    for path in sorted(profiles.glob("*.prof")):
        kind = path.stem.rsplit("-", 1)[0] if path.stem != "main" else "main"
        if kind in merged:
            merged[kind].add(str(path))
        else:
            merged[kind] = pstats.Stats(str(path))
    return merged


def _table(stats: pstats.Stats) -> dict[Key, tuple[int, float, float]]:
    """function → (calls, own seconds, cumulative seconds)."""
    return {key: (nc, tt, ct) for key, (_cc, nc, tt, ct, _callers) in stats.stats.items()}  # type: ignore[attr-defined]


def _name(key: Key) -> str:
    file, line, func = key
    marker = "/site-packages/"
    if marker in file:
        file = file.split(marker, 1)[1]
    elif "/src/" in file:
        file = file.split("/src/", 1)[1]
    return f"{file}:{line}({func})"


def report(idle: Path, busy: Path, writes: int, top: int) -> None:
    """Print, per thread, the extra time and calls per change, and the top functions."""
    idle_threads, busy_threads = _by_thread(idle), _by_thread(busy)
    for thread, stats in sorted(busy_threads.items()):
        mine = _table(stats)
        base = _table(idle_threads[thread]) if thread in idle_threads else {}
        delta: dict[Key, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
        for key, (nc, tt, ct) in mine.items():
            bnc, btt, bct = base.get(key, (0, 0.0, 0.0))
            delta[key] = [(nc - bnc) / writes, (tt - btt) / writes * 1000, (ct - bct) / writes * 1000]
        own = sum(value[1] for value in delta.values())
        calls = sum(value[0] for value in delta.values())
        print(f"\n== thread {thread}: {own:.3f} ms and {calls:.0f} calls per change (under cProfile)")
        print(f"{'calls/chg':>10} {'own ms/chg':>11} {'cum ms/chg':>11}  function")
        ranked = sorted(delta.items(), key=lambda item: item[1][1], reverse=True)[:top]
        for key, (nc, tt, ct) in ranked:
            print(f"{nc:10.1f} {tt:11.4f} {ct:11.4f}  {_name(key)}")
        print("  by cumulative time (teamdeck's own functions):")
        ours = [item for item in delta.items() if "teamdeck/" in item[0][0]]
        for key, (nc, tt, ct) in sorted(ours, key=lambda item: item[1][2], reverse=True)[:top]:
            print(f"{nc:10.1f} {tt:11.4f} {ct:11.4f}  {_name(key)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1×", choices=list(SCALE))
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--approvals", type=int, default=0, help="approve this many gates instead of writing")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--dir", type=Path, help="keep the workspace and the profiles here")
    args = parser.parse_args(argv)
    root = args.dir or Path(tempfile.mkdtemp(prefix="teamdeck-profile-"))
    root.mkdir(parents=True, exist_ok=True)
    layout = generate(root / "ws", **SCALE[args.size])
    results = {}
    changes = args.approvals or args.writes
    for mode, writes in (("idle", 0), ("busy", args.writes)):
        shutil.rmtree(root / mode, ignore_errors=True)
        approve = args.approvals if mode == "busy" else 0
        results[mode] = _session(layout, root / f"ws-{mode}", writes, root / mode, approve)
        print(
            f"{mode}: {results[mode]:.1f} % of a core under cProfile (load {os.getloadavg()[0]:.1f})", file=sys.stderr
        )
    what = f"{args.approvals} approvals" if args.approvals else f"{args.writes} writes at 20/s"
    print(f"size {args.size}, {what}; load average {os.getloadavg()}")
    print(f"CPU under cProfile: idle {results['idle']:.1f} %, busy {results['busy']:.1f} %")
    report(root / "idle", root / "busy", changes, args.top)
    if args.dir is None:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
