"""``teamdeck demo``: the bundled demo workspace, brought to life by simulated agents.

Without ``--workspace`` the demo copies demo-workspace/ into a fresh temporary
directory (and says where), removed when the demo ends (``--keep`` keeps it); with ``--workspace DIR`` it copies it into DIR when DIR is
missing or empty, and otherwise simulates agents on DIR as it is (a benchmark's
generated workspace, say). On a fresh copy everything runs on the demo clock
(:mod:`teamdeck.sim.clock`), so the bundled history keeps believable ages; on an
existing workspace, on the real clock.

The simulation runs on a thread; the TUI runs in front of it, and quitting the TUI
stops it. ``--no-tui`` runs the simulation alone, for ``--duration`` seconds or until
Ctrl-C, and prints what it did.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.clock import Clock, utc_now
from teamdeck.errors import Refused
from teamdeck.resources import data_dir
from teamdeck.sim.clock import running_clock
from teamdeck.sim.simulation import Simulation
from teamdeck.store.workspace import Workspace

SIM_ACTOR = "agent:sim"
"""The actor of anything the simulation writes outside a teammate's name."""


def register(subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    demo = subparsers.add_parser(
        "demo",
        parents=[common],
        help=summary("demo"),
        description="Copy the demo workspace into a temporary directory, start simulated agents that write into "
        "it the way real agents do, and open the TUI on it. Quitting stops the simulation.",
    )
    demo.add_argument("--no-tui", action="store_true", help="run only the simulation (for tests and benchmarks)")
    demo.add_argument(
        "--duration", type=float, metavar="S", help="stop after S seconds (default: until quit or Ctrl-C)"
    )
    demo.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="simulated seconds per real second (default 1; 10 makes everything 10x faster)",
    )
    demo.add_argument("--seed", type=int, default=0, help="fixes every choice the simulated agents make")
    demo.add_argument(
        "--keep", action="store_true", help="keep the temporary copy after quitting (default: it is removed)"
    )
    demo.set_defaults(handler=_demo, creates_workspace=True)


def prepare_workspace(given: str | None) -> tuple[Path, bool]:
    """The directory to simulate on, and whether it is a fresh copy of the demo.

    Args:
        given: ``--workspace`` as typed, or None for a new temporary directory.

    Raises:
        Refused: ``given`` exists and is not a directory.
    """
    if given is None:
        target = Path(tempfile.mkdtemp(prefix="teamdeck-demo-")) / "workspace"
    else:
        target = Path(given).expanduser().resolve()
        if target.exists() and not target.is_dir():
            raise Refused(f"Could not start the demo: {target} is not a directory")
        if target.is_dir() and any(target.iterdir()):
            return target, False
    shutil.copytree(data_dir("demo-workspace"), target, dirs_exist_ok=True)
    return target, True


def _demo(args: argparse.Namespace, _ws: Workspace) -> Output:
    if args.speed <= 0:
        raise Refused("Could not start the demo: --speed must be positive")
    if args.duration is not None and args.duration < 0:
        raise Refused("Could not start the demo: --duration must not be negative")
    given = vars(args).get("workspace")
    root, fresh = prepare_workspace(given)
    temporary = root.parent if given is None and not args.keep else None
    if temporary is not None:
        # A closed terminal or a dropped SSH session (SIGHUP) ends the demo as Ctrl-C
        # does, so the copy is removed then too (by default SIGHUP ends the process
        # without running the cleanup below).
        signal.signal(signal.SIGHUP, signal.default_int_handler)
    try:
        sim = _simulate(root, fresh, args)
    finally:
        if temporary is not None:  # a temporary copy nobody named is nobody's: remove it
            shutil.rmtree(temporary, ignore_errors=True)
    counts = Counter(happened.label.split(" ", 1)[0] for happened in sim.scheduler.history)
    done = {kind: counts[kind] for kind in ("turn", "output", "resume", "plan", "chatter") if counts[kind]}
    text = f"simulated {sim.scheduler.now:.1f} s on {root}" + (" (removed; --keep keeps it)" if temporary else "")
    text += ": " + (", ".join(f"{count} {kind}" for kind, count in done.items()) or "nothing happened yet")
    if sim.scheduler.errors:
        text += f"\n{len(sim.scheduler.errors)} simulated actions failed:\n" + "\n".join(sim.scheduler.errors)
    return Output(
        data={
            "ok": True,
            "workspace": str(root),
            "fresh": fresh,
            "removed": temporary is not None,
            "simulatedSeconds": sim.scheduler.now,
            "actions": done,
            "errors": sim.scheduler.errors,
        },
        text=text,
    )


def _simulate(root: Path, fresh: bool, args: argparse.Namespace) -> Simulation:
    """Run the simulation on ``root`` (with the TUI in front unless --no-tui); it, once stopped."""
    clock: Clock = running_clock() if fresh else utc_now
    sim = Simulation(Workspace.at(root, clock=clock, actor=SIM_ACTOR), seed=args.seed, speed=args.speed)
    what = "a fresh copy of the demo workspace" if fresh else "an existing workspace"
    kept = " (removed when you quit; --keep keeps it)" if vars(args).get("workspace") is None and not args.keep else ""
    print(
        f"teamdeck demo: {root} ({what}){kept}; {len(sim.teammates)} simulated teammates", file=sys.stderr, flush=True
    )
    stop = threading.Event()
    if args.no_tui:
        _run_headless(sim, stop, args.duration)
    else:
        _run_with_tui(sim, stop, root, clock, args)
    return sim


def _run_headless(sim: Simulation, stop: threading.Event, duration: float | None) -> None:
    """Run the simulation on this thread until ``duration`` passes or Ctrl-C."""
    try:
        sim.run(stop, duration=duration)
    except KeyboardInterrupt:
        stop.set()


def _run_with_tui(sim: Simulation, stop: threading.Event, root: Path, clock: Clock, args: argparse.Namespace) -> None:
    """The simulation on a thread, the TUI in front; leaving the TUI stops the simulation."""
    from teamdeck.tui import open_app  # Textual is imported only for the TUI

    thread = sim.start(stop, duration=args.duration)
    try:
        open_app(Workspace.at(root, clock=clock), read_only=bool(getattr(args, "read_only", False))).run()
    finally:
        stop.set()
        thread.join()
