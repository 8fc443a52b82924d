"""The performance benchmarks of the TUI: each target measured and printed as a table
row against its target (never asserted). See bench/README.md for what each one does.

Usage::

    python bench/run.py [all|core|latency|burst|start|action|idle ...] [--quick] [--dir DIR] [--commit REV]

``--quick`` runs every benchmark with tiny sizes and counts (the smoke test uses it:
the numbers mean nothing then). ``--dir`` keeps the generated workspaces there
(default: a temporary directory, removed afterwards). ``--commit REV`` measures the
teamdeck of that commit (``git archive`` into a temporary directory, imported through
``PYTHONPATH`` by this process and the app) instead of the working tree, which other
people may be editing while the benchmarks run.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import targets_core as core
import targets_screen as screen
from common import Result, print_table
from generate import Layout, generate


@dataclass(frozen=True)
class Sizes:
    """Workspace sizes and repeat counts of one run."""

    live: dict[str, int]
    """The workspace of the live benchmarks: 1,000 watched files, 250 open gates."""
    scale: dict[str, int]
    """The start benchmark's: 500 members, 200 tasks (plus ``big_log`` events)."""
    big_log: int
    team_log: int
    """Messages logged in one team's messages.jsonl, for the long-session refresh."""
    changes: int
    burst_writes: int
    bursts: int
    starts: int
    cpu_window_s: float
    settle_s: float
    """How long the app may settle after its first screen before it is measured."""


FULL = Sizes(
    live=dict(teams=20, members=200, tasks=100, files=1000, gates=250),
    scale=dict(teams=25, members=500, tasks=200, files=1000, gates=50),
    big_log=1_000_000,
    team_log=10_000,
    changes=200,
    burst_writes=1000,
    bursts=3,
    starts=5,
    cpu_window_s=20.0,
    settle_s=screen.SETTLE_S,
)
QUICK = Sizes(
    live=dict(teams=2, members=6, tasks=4, files=40, gates=8),
    scale=dict(teams=2, members=6, tasks=4, files=40, gates=4),
    big_log=2000,
    team_log=50,
    changes=3,
    burst_writes=20,
    bursts=1,
    starts=1,
    cpu_window_s=0.3,
    settle_s=0.5,
)


class Workspaces:
    """Generates each workspace once and hands out fresh copies to benchmarks that write."""

    def __init__(self, root: Path, sizes: Sizes) -> None:
        self.root = root
        self.sizes = sizes
        self._made: dict[str, Layout] = {}
        self._copies = 0

    def _get(self, name: str, **options: int) -> Layout:
        if name not in self._made:
            shutil.rmtree(self.root / name, ignore_errors=True)  # left by an earlier run with --dir
            started = time.perf_counter()
            self._made[name] = generate(self.root / name, **options)
            print(
                f"  generated {name}: {self._made[name].files} files ({time.perf_counter() - started:.1f} s)",
                file=sys.stderr,
            )
        return self._made[name]

    def live(self) -> Layout:
        """A fresh copy of the live workspace."""
        self._copies += 1
        return core.fresh_copy(self._get("live", **self.sizes.live), self.root / f"copy-{self._copies}")

    def long_team(self) -> Layout:
        """A fresh copy of a small workspace whose first team sent ``team_log`` messages."""
        layout = self._get("long-team", teams=2, members=20, tasks=4, files=60, gates=2, team_log=self.sizes.team_log)
        self._copies += 1
        return core.fresh_copy(layout, self.root / f"copy-{self._copies}")

    def scale(self, big: bool) -> Layout:
        """The start workspace, with or without the big log (read only: not copied)."""
        if big:
            return self._get("scale-big", **self.sizes.scale, big_log=self.sizes.big_log)
        return self._get("scale", **self.sizes.scale)


def run_core(spaces: Workspaces) -> list[Result]:
    sizes = spaces.sizes
    big = spaces.scale(big=True)
    return [
        core.watcher_latency(spaces.live(), sizes.changes),
        *core.refresh_costs(spaces.live(), sizes.changes),
        core.refresh_in_long_team(spaces.long_team(), max(3, sizes.changes // 10)),
        *core.build_at_scale(spaces.scale(big=False), big, max(1, sizes.starts // 2)),
        core.approve_durable(spaces.live(), sizes.changes),
        core.approve_in_big_task(core.fresh_copy(big, spaces.root / "big-copy"), 3),
    ]


def run_latency(spaces: Workspaces) -> list[Result]:
    sizes = spaces.sizes
    return [
        screen.write_to_screen(spaces.live(), sizes.changes, sizes.settle_s),
        core.watcher_latency(spaces.live(), sizes.changes),
    ]


def run_burst(spaces: Workspaces) -> list[Result]:
    sizes = spaces.sizes
    return screen.burst(spaces.live(), sizes.burst_writes, sizes.bursts, sizes.settle_s)


def run_start(spaces: Workspaces) -> list[Result]:
    big = spaces.scale(big=True)
    lines = f"{spaces.sizes.big_log:,} events in one log"
    sizes = spaces.sizes
    return [
        *screen.start(spaces.scale(big=False), sizes.starts, "small logs", sizes.settle_s),
        *screen.start(big, sizes.starts, lines, sizes.settle_s),
    ]


def run_action(spaces: Workspaces) -> list[Result]:
    return screen.approve_key(spaces.live(), spaces.sizes.changes, spaces.sizes.settle_s)


def run_idle(spaces: Workspaces) -> list[Result]:
    return screen.idle_cpu(spaces.live(), spaces.sizes.cpu_window_s, spaces.sizes.settle_s)


TARGETS: dict[str, Callable[[Workspaces], list[Result]]] = {
    "latency": run_latency,
    "burst": run_burst,
    "start": run_start,
    "action": run_action,
    "idle": run_idle,
    "core": run_core,
}


def run_commit(revision: str, argv: list[str]) -> int:
    """Run these benchmarks again in a child, on the teamdeck source of ``revision``."""
    repo = Path(__file__).resolve().parents[1]
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", f"{revision}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    archive = subprocess.run(["git", "-C", str(repo), "archive", commit], check=True, capture_output=True).stdout
    with tempfile.TemporaryDirectory(prefix="teamdeck-src-") as tree:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(tree, filter="data")
        env = {
            **os.environ,
            "PYTHONPATH": str(Path(tree) / "src"),
            "TEAMDECK_BENCH_SOURCE": f"teamdeck {commit} (git archive of {revision})",
        }
        return subprocess.run([sys.executable, __file__, *argv], env=env, check=False).returncode


def compile_source(root: Path) -> None:
    """Compile teamdeck's modules under ``root`` to bytecode, as installing a package
    does (pip compiles at install; Python writes the rest on first import). Starts are
    timed, and a machine that sets ``PYTHONDONTWRITEBYTECODE`` (this one does) would
    otherwise compile all ~180 modules again on every start, in the app and in its
    child: ~60-70 ms of each start that no installed teamdeck spends."""
    compileall.compile_dir(root, quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="teamdeck performance benchmarks")
    parser.add_argument("targets", nargs="*", metavar="TARGET", help=f"all (default) or some of: {', '.join(TARGETS)}")
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that every benchmark runs")
    parser.add_argument("--dir", type=Path, help="where to generate workspaces (kept)")
    parser.add_argument("--commit", metavar="REV", help="measure teamdeck as of this commit, not the working tree")
    args = parser.parse_args(argv)
    if args.commit:
        rest = list(sys.argv[1:] if argv is None else argv)
        index = rest.index("--commit") if "--commit" in rest else -1
        rest = (
            rest[:index] + rest[index + 2 :]
            if index >= 0
            else [item for item in rest if not item.startswith("--commit=")]
        )
        return run_commit(args.commit, rest)
    unknown = set(args.targets) - {"all", *TARGETS}
    if unknown:
        parser.error(f"unknown target(s): {', '.join(sorted(unknown))}; choose from all, {', '.join(TARGETS)}")
    names = list(TARGETS) if not args.targets or "all" in args.targets else args.targets
    package = importlib.util.find_spec("teamdeck")
    if package is not None and package.origin is not None:
        compile_source(Path(package.origin).parent)  # the tree measured: --commit's archive, else the working tree
    sizes = QUICK if args.quick else FULL
    root = args.dir or Path(tempfile.mkdtemp(prefix="teamdeck-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    results: list[Result] = []
    started = time.perf_counter()
    try:
        spaces = Workspaces(root, sizes)
        for name in names:
            print(f"running {name}…", file=sys.stderr)
            rows = [
                replace(
                    row,
                    note=f"{row.note}; load {os.getloadavg()[0]:.1f}" if row.note else f"load {os.getloadavg()[0]:.1f}",
                )
                for row in TARGETS[name](spaces)
            ]
            print_table(name, rows, sys.stderr)
            results += rows
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)
    print_table(
        f"teamdeck benchmarks ({'quick: sizes too small to mean anything' if args.quick else 'full'}; "
        f"{time.perf_counter() - started:.0f} s)",
        results,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
