"""The app as ``teamdeck tui`` starts it (``teamdeck.tui.open_app``), plus what only the process itself can see:
every garbage-collection pause (``gc.callbacks``), written as JSON to ``--stats FILE``
when it exits (peak memory is read from outside, /proc/PID/status VmHWM). ``bench/screen.py`` runs this under a pty.

With ``$TEAMDECK_BENCH_PROFILE`` set to a file name, the UI thread runs under cProfile
and the stats are dumped there at exit (``python -m pstats FILE``): run one benchmark
with it to see where the time of a miss goes. With ``$TEAMDECK_BENCH_PROFILE_THREADS``
set to a directory, every thread (UI, refresher, watcher, actions) runs under its own
cProfile and each is dumped there at exit as ``<thread name>.prof``
(``bench/profile_changes.py`` uses it to say what one change costs, thread by thread).
With ``$TEAMDECK_BENCH_THREADS`` set to a file, each thread's native id and name are
appended to it as it starts (``bench/cpu_at_writes.py`` splits the CPU by thread).

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


def _name_threads(path: str) -> None:
    """Append ``<native thread id> <name>`` to ``path`` as each thread starts (the
    benchmark reads each thread's CPU from /proc/PID/task/TID by it)."""
    import threading

    original = threading.Thread.run

    def run(self: threading.Thread) -> None:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{threading.get_native_id()} {self.name}\n")
        original(self)

    threading.Thread.run = run  # type: ignore[method-assign]


def _profile_threads(directory: str) -> None:
    """Run every thread started from now on, and the main thread, under its own cProfile;
    dump each to ``directory/<name>.prof`` at exit (a thread still running then is
    dumped as it stands: its profiler is only read)."""
    import threading

    profilers: dict[str, cProfile.Profile] = {}
    original = threading.Thread.run

    def run(self: threading.Thread) -> None:
        profiler = profilers.setdefault(f"{self.name}-{len(profilers)}", cProfile.Profile(time.thread_time))
        profiler.enable()
        try:
            original(self)
        finally:
            profiler.disable()

    threading.Thread.run = run  # type: ignore[method-assign]

    def dump() -> None:
        main_profiler.disable()
        os.makedirs(directory, exist_ok=True)
        for name, profiler in {"main": main_profiler, **profilers}.items():
            safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
            profiler.dump_stats(os.path.join(directory, f"{safe}.prof"))

    main_profiler = cProfile.Profile(time.thread_time)
    atexit.register(dump)
    main_profiler.enable()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace")
    parser.add_argument("--no-watch", action="store_true")
    parser.add_argument("--stats")
    args = parser.parse_args()
    gc.callbacks.append(_on_gc)
    if os.environ.get("TEAMDECK_BENCH_THREADS"):
        _name_threads(os.environ["TEAMDECK_BENCH_THREADS"])
    if os.environ.get("TEAMDECK_BENCH_PROFILE_THREADS"):
        _profile_threads(os.environ["TEAMDECK_BENCH_PROFILE_THREADS"])
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
