"""The app as ``teamdeck tui`` starts it (``teamdeck.tui.open_app``), plus what only the process itself can see:
every garbage-collection pause (``gc.callbacks``), written as JSON to ``--stats FILE``
when it exits (peak memory is read from outside, /proc/PID/status VmHWM). ``bench/screen.py`` runs this under a pty.

With ``$TEAMDECK_BENCH_PROFILE`` set to a file name, the UI thread runs under cProfile
and the stats are dumped there at exit (``python -m pstats FILE``): run one benchmark
with it to see where the time of a miss goes.

Usage::

    python bench/app_main.py WORKSPACE [--no-watch] [--stats FILE]
"""

from __future__ import annotations

import argparse
import atexit
import cProfile
import gc
import json
import os
import time

_pauses: list[float] = []
_started: list[float] = []
_long: list[tuple[float, float]] = []
"""(perf_counter at the end, ms) of every pause over 5 ms: perf_counter is the
system-wide monotonic clock on Linux, so the benchmark can tell which came after the
first frame."""


def _on_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _started.append(time.perf_counter())
    elif _started:
        now = time.perf_counter()
        _pauses.append((now - _started.pop()) * 1000)
        if _pauses[-1] > 5:
            _long.append((now, _pauses[-1]))


def _write_stats(path: str) -> None:
    stats = {
        "gc_collections": len(_pauses),
        "gc_max_ms": max(_pauses, default=0.0),
        "gc_total_ms": sum(_pauses),
        "gc_over_50ms": sum(1 for pause in _pauses if pause > 50),
        "gc_long": _long,
    }
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(stats, handle)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace")
    parser.add_argument("--no-watch", action="store_true")
    parser.add_argument("--stats")
    args = parser.parse_args()
    gc.callbacks.append(_on_gc)
    if args.stats:
        atexit.register(_write_stats, args.stats)
    from teamdeck.store.workspace import Workspace
    from teamdeck.tui import open_app

    app = open_app(Workspace.at(args.workspace), watch=not args.no_watch)
    profile_to = os.environ.get("TEAMDECK_BENCH_PROFILE")
    if profile_to:
        profiler = cProfile.Profile()
        atexit.register(profiler.dump_stats, profile_to)
        atexit.register(profiler.disable)
        profiler.enable()
    app.run()


if __name__ == "__main__":
    main()
