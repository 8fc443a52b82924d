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
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import targets_core as core
import targets_ratio as ratio
import targets_screen as screen
from common import Result, machine, print_table, source
from generate import Layout, generate
from pairs import agreement


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
    ratio_sizes: dict[str, dict[str, int]]
    """The workspaces of the ratio table by name (1×, 3×, 10×): see SCALE."""
    ratio_counts: ratio.Counts


SCALE = {
    "1×": dict(teams=20, members=200, tasks=100, files=1000, gates=250),
    "3×": dict(teams=45, members=600, tasks=300, files=3000, gates=750),
    "10×": dict(teams=100, members=2000, tasks=1000, files=10_000, gates=2500),
}
"""The ratio table's workspaces: 1× is the live workspace; 10× is the ``scale``
workspace (2,000 members over 100 teams, 10,000 watched files, 2,500 open
gates, 1,000 tasks); teams grow slower than members (10 to 20 members a team)."""
FACTORS = {"1×": 1.0, "3×": 3.0, "10×": 10.0}

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
    ratio_sizes=SCALE,
    ratio_counts=ratio.Counts(),
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
    ratio_sizes={"1×": dict(teams=2, members=6, tasks=4, files=40, gates=8)},
    ratio_counts=ratio.Counts(
        rounds=1, starts=1, writes=3, approvals=2, cpu_windows=1, cpu_window_s=0.3, burst_writes=20, settle_s=0.5
    ),
)


class Workspaces:
    """Generates each workspace once and hands out fresh copies to benchmarks that write."""

    def __init__(self, root: Path, sizes: Sizes) -> None:
        self.root = root
        self.sizes = sizes
        self._made: dict[str, Layout] = {}
        self._copies = 0
        self.notes: dict[str, str] = {}
        """What each size of the ratio table was, and the load while it ran."""

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

    def sized(self, size: str) -> Layout:
        """The workspace of one size of the ratio table (written to: used by it alone)."""
        return self._get(f"ratio-{size.rstrip('×')}x", **self.sizes.ratio_sizes[size])

    def scale(self, big: bool) -> Layout:
        """The start workspace, with or without the big log (read only: not copied)."""
        if big:
            return self._get("scale-big", **self.sizes.scale, big_log=self.sizes.big_log)
        return self._get("scale", **self.sizes.scale)


def run_ratios(spaces: Workspaces, sizes: list[str], repetition: int = 0) -> list[ratio.Row]:
    """The ratio table: every on-screen target against its floor at each size, each
    measured on a fresh copy of the generated workspace (a repetition starts from the
    same gates waiting and no record of what an earlier run's app saw)."""
    rows = []
    for size in sizes:
        layout = core.fresh_copy(spaces.sized(size), spaces.root / f"run-{repetition + 1}-{size.rstrip('×')}x")
        load = os.getloadavg()
        started = time.perf_counter()
        try:
            measured = ratio.measure(layout, size, spaces.sizes.ratio_counts)
        finally:
            for copy in (layout.root, layout.root.with_name(f"{layout.root.name}-bare")):
                shutil.rmtree(copy, ignore_errors=True)
        after = os.getloadavg()
        note = (
            f"{layout.members} members, {len(layout.teams)} teams, {len(layout.tasks)} tasks, "
            f"{len(layout.gates)} open gates, {layout.files} files; {time.perf_counter() - started:.0f} s; "
            f"load average {load[0]:.2f} → {after[0]:.2f}"
        )
        rows += [replace(row, size=size) for row in measured]
        spaces.notes[size] = note
        print(f"\n{size}: {note}\n" + "\n".join(ratio.format_rows(measured)), file=sys.stderr)
    return rows


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


EXTRA_MODULES = ("cli.py", "bench_send.py", "rows_*.py")
"""Other helpers' self-contained benchmark modules in bench/ (the CLI's start times, one
send into a big inbox): their rows are added to the table when the file exists. A
module gives ``results(quick) -> list[Result]``, or prints a Markdown table when run."""


def extra_rows(quick: bool) -> list[str]:
    """The Markdown rows of every module of EXTRA_MODULES present in bench/."""
    here = Path(__file__).parent
    lines = []
    for module in sorted({path for pattern in EXTRA_MODULES for path in here.glob(pattern)}):
        print(f"running {module.name}…", file=sys.stderr)
        spec = importlib.util.spec_from_file_location(f"bench_{module.stem}", module)
        assert spec is not None and spec.loader is not None
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = loaded  # dataclasses look their module up while it loads
        spec.loader.exec_module(loaded)
        if hasattr(loaded, "results"):
            for row in loaded.results(quick):
                note = f" ({row.note})" if row.note else ""
                lines.append(f"| {row.name} | {row.measured}{note} | {row.target} | {row.verdict} |")
            continue
        quick_flag = ["--quick"] if quick and "--quick" in module.read_text() else []
        out = subprocess.run(
            [sys.executable, str(module), *quick_flag], capture_output=True, text=True, check=False, timeout=600
        )
        if out.returncode:
            lines.append(f"| {module.name} | failed ({out.returncode}): {out.stderr.strip()[-200:]} | | MISS |")
            continue
        table = [
            line
            for line in out.stdout.splitlines()
            if line.startswith("|") and not set(line) <= set("|-: ") and "| benchmark |" not in line
        ]
        # Not Markdown (bench_send.py prints a title line, then aligned columns): one row a line.
        text = [line.strip() for line in out.stdout.splitlines()[1:] if line.strip()]
        title = out.stdout.splitlines()[0] if out.stdout.strip() else module.name
        lines += table or [f"| {module.name}: {title} | | | |", *(f"|   `{line}` | | | |" for line in text)]
    return lines


def print_ratios(rows: list[ratio.Row], notes: dict[str, str], sizes: list[str], out: object = None) -> None:
    """The ratio table, the sizes it was measured at, and the growth table."""
    out = out or sys.stdout
    print("\n### Each target against its floor, measured in the same run\n", file=out)
    print(f"{machine()}; {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}\n", file=out)
    print(f"{source()}\n", file=out)
    for size in sizes:
        print(f"- {size}: {notes.get(size, '')}", file=out)
    print("", file=out)
    print("\n".join(ratio.format_rows(rows)), file=out)
    growth = ratio.growth_lines(rows, {size: FACTORS.get(size, 1.0) for size in sizes})
    if growth:
        print("\nHow each grows with the workspace (medians; peak memory: max):\n", file=out)
        print("\n".join(growth), file=out)
    out.flush()  # type: ignore[attr-defined]


NOISE = 0.05
"""A change of a ratio smaller than this is not called better or worse, even where the
pairs' IQRs do not overlap (one pair: each IQR is a single value)."""


def compare(reference: str, argv: list[str]) -> int:
    """Run the ratio table on ``reference`` and on the working tree, one after the
    other, and print both side by side with the change of every ratio."""
    with tempfile.TemporaryDirectory(prefix="teamdeck-compare-") as scratch:
        outputs = {}
        for label, extra in ((reference, ["--commit", reference]), ("working tree", [])):
            path = Path(scratch) / f"{len(outputs)}.json"
            print(f"measuring {label}…", file=sys.stderr)
            code = subprocess.run(  # its tables go to stderr with its progress: stdout is the comparison
                [sys.executable, __file__, *argv, *extra, "--json", str(path)], check=False, stdout=sys.stderr
            ).returncode
            if code:
                return code
            outputs[label] = json.loads(path.read_text())
    ref, tree = outputs[reference], outputs["working tree"]
    print(f"\n### {reference} ({ref['source']}) against the working tree ({tree['source']})\n")
    print(f"load average: {ref['load']} then {tree['load']}\n")
    print(f"| size | target | ratio {reference} (IQR) | ratio working tree (IQR) | change | |")
    print("|---|---|---|---|---|---|")
    before = {(row["size"], row["name"]): row for row in ref["rows"]}
    for row in tree["rows"]:
        old = before.get((row["size"], row["name"]))
        if old is None or row["ratio"] is None or old["ratio"] is None:
            continue
        change = row["ratio"] / old["ratio"] - 1
        overlap = (
            old["spread"]
            and row["spread"]
            and row["spread"][0] <= old["spread"][1]
            and old["spread"][0] <= row["spread"][1]
        )

        def shown(item: dict) -> str:
            spread = f" ({item['spread'][0]:.2f}-{item['spread'][1]:.2f})" if item["spread"] else ""
            return f"{item['ratio']:.2f}×{spread}"

        verdict = "same (IQRs overlap)" if overlap or abs(change) < NOISE else ("better" if change < 0 else "WORSE")
        print(f"| {row['size']} | {row['name']} | {shown(old)} | {shown(row)} | {change:+.0%} | {verdict} |")
    return 0


def _without(argv: list[str], option: str) -> list[str]:
    """``argv`` without ``option`` and its value (``--opt V`` or ``--opt=V``)."""
    rest, skip = [], False
    for item in argv:
        if skip:
            skip = False
        elif item == option:
            skip = True
        elif not item.startswith(option + "="):
            rest.append(item)
    return rest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="teamdeck performance benchmarks")
    parser.add_argument(
        "targets", nargs="*", metavar="TARGET", help=f"all (default) or some of: {', '.join(TARGETS)}, ratios, extra"
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes: checks that every benchmark runs")
    parser.add_argument("--dir", type=Path, help="where to generate workspaces (kept)")
    parser.add_argument("--commit", metavar="REV", help="measure teamdeck as of this commit, not the working tree")
    parser.add_argument(
        "--compare", metavar="REF", help="the ratio table on REF and on the working tree, and the change"
    )
    parser.add_argument("--sizes", default=",".join(SCALE), help="sizes of the ratio table (default: 1×,3×,10×)")
    parser.add_argument("--json", type=Path, help="also write the ratio rows to this file (for --compare)")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="measure the ratio table N times and say whether each row agrees within its spread",
    )
    args = parser.parse_args(argv)
    given = list(sys.argv[1:] if argv is None else argv)
    if args.compare:
        return compare(
            args.compare, _without(given, "--compare") if args.targets else [*_without(given, "--compare"), "ratios"]
        )
    if args.commit:
        return run_commit(args.commit, _without(given, "--commit"))
    known = {"all", "ratios", "extra", *TARGETS}
    unknown = set(args.targets) - known
    if unknown:
        parser.error(f"unknown target(s): {', '.join(sorted(unknown))}; choose from {', '.join(sorted(known))}")
    names = [*TARGETS, "ratios", "extra"] if not args.targets or "all" in args.targets else args.targets
    sizes = QUICK if args.quick else FULL
    chosen = [size if size.endswith("×") else f"{size}×" for size in args.sizes.split(",") if size]
    if args.quick:
        chosen = list(sizes.ratio_sizes)
    missing = [size for size in chosen if size not in sizes.ratio_sizes]
    if missing:
        parser.error(f"unknown size(s): {', '.join(missing)}; choose from {', '.join(sizes.ratio_sizes)}")
    package = importlib.util.find_spec("teamdeck")
    if package is not None and package.origin is not None:
        compile_source(Path(package.origin).parent)  # the tree measured: --commit's archive, else the working tree
    root = args.dir or Path(tempfile.mkdtemp(prefix="teamdeck-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    results: list[Result] = []
    ratio_rows: list[ratio.Row] = []
    repeats: list[tuple[list[ratio.Row], dict[str, str]]] = []
    extra: list[str] = []
    started = time.perf_counter()
    load = os.getloadavg()
    try:
        spaces = Workspaces(root, sizes)
        for name in names:
            print(f"running {name}…", file=sys.stderr)
            if name == "ratios":
                for repetition in range(max(1, args.repeat)):
                    spaces.notes = {}
                    repeats.append((run_ratios(spaces, chosen, repetition), spaces.notes))
                ratio_rows = repeats[0][0]
                continue
            if name == "extra":
                extra = extra_rows(args.quick)
                continue
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
    took = time.perf_counter() - started
    if results:
        print_table(
            f"teamdeck benchmarks ({'quick: sizes too small to mean anything' if args.quick else 'full'}; {took:.0f} s)",
            results,
        )
    for number, (rows_of_run, notes) in enumerate(repeats, 1):
        if len(repeats) > 1:
            print(f"\n## Run {number} of {len(repeats)}")
        print_ratios(rows_of_run, notes, chosen)
    if len(repeats) > 1:
        print("\n### Do the runs agree within the spread they report?\n")
        print(
            "Each row's median ratio (its 95 % interval for the median) per run; agree: each median lies in the"
            " other's interval.\n"
        )
        print("\n".join(agreement([[row.as_dict() for row in rows_of_run] for rows_of_run, _notes in repeats])))
    if "extra" in names:
        print("\n### The CLI and the runtime\n")
        print("| benchmark | measured | target | |\n|---|---|---|---|")
        print(
            "\n".join(extra)
            if extra
            else "| (none of bench/cli.py, bench/bench_send.py, bench/rows_*.py is here yet) | | | |"
        )
    load_after = os.getloadavg()
    print(
        f"\n{took:.0f} s; load average (1/5/15 min) at the start {load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f}, "
        f"at the end {load_after[0]:.2f}/{load_after[1]:.2f}/{load_after[2]:.2f}"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "source": source(),
                    "load": f"{load[0]:.2f} → {load_after[0]:.2f}",
                    "rows": [row.as_dict() for row in ratio_rows],
                    "runs": [[row.as_dict() for row in rows_of_run] for rows_of_run, _notes in repeats],
                }
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
