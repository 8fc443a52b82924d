"""``teamdeck demo``: the bundled demo workspace, brought to life by agents the runner runs.

Without ``--workspace`` the demo copies demo-workspace/ into a fresh temporary directory
(and says where), removed when the demo ends (``--keep`` keeps it); with ``--workspace
DIR`` it copies it into DIR when DIR is missing or empty, and otherwise plays on DIR as
it is (the runner runs the agents DIR's ``.teamdeck.yaml`` names).

It then does what a user does to have agents run: the workspace's ``.teamdeck.yaml``
gets an ``agents:`` section (teamdeck/sim/setup.py: every teammate runs ``python -m
teamdeck.sim.agent`` with ``runtime: command``) and the runner ``teamdeck run`` starts
runs (teamdeck/runner/hosting.py): it wakes a member with unread work, records each run,
stops them. Beside it the scenario (teamdeck/sim/scenario.py) plays the lead's side on a
timer: workers created, tasks assigned, status checks. Every agent behaviour happens in
a run the runner started; the TUI in front shows them (▶, ``l`` for a run's log).

The runner runs in this process, on a thread with an event loop of its own, rather than
as a ``teamdeck run`` child process: it is the same Runner object either way, but here
the demo ends it with a call (no signal relayed to a child that a closed terminal could
leave behind).
The runs themselves are child processes in their own process groups; stopping the
runner stops them (SIGTERM, grace, SIGKILL) before the demo returns.

A fresh copy is rebased to now (teamdeck/sim/clock.py): every timestamp in it moves by
the same amount, so the bundled history keeps its believable ages ("gate waiting 45
min") on the real clock, the one the TUI, the runner, every run, and a ``teamdeck send``
or ``teamdeck status`` typed in another shell all read.

Quitting the TUI, Ctrl-C, a closed terminal (SIGHUP) or ``--duration`` (without the TUI)
ends the scenario and the runner, then removes the temporary copy. ``--no-tui`` prints
the runner's lines on stderr and, at the end, what ran; with the TUI the runner's lines
go to ``runner.log`` in the demo's temporary directory (the terminal is the TUI's).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output, common_options
from teamdeck.clock import iso, utc_now
from teamdeck.errors import Refused, TeamdeckError
from teamdeck.resources import data_dir
from teamdeck.runner.hosting import RunnerHost
from teamdeck.sim.clock import rebase
from teamdeck.sim.scenario import Scenario
from teamdeck.sim.setup import environment, install_agents
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.runs import all_runs

COPY_NAME = "demo-workspace"
"""The copy's directory in the demo's temporary one: the name the TUI's overview line
shows, so it says what it is a copy of."""
WORKSPACE_HELP = (
    "where to play (default: a new temporary directory, removed when the demo ends unless "
    "--keep; never $TEAMDECK_WORKSPACE or the current directory): a missing or empty DIR "
    "gets a copy of the demo, any other is played as it is"
)
READY_WAIT_S = 15.0
"""How long the demo waits for the runner's first look before it goes on without it."""


def register_demo(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], _common: argparse.ArgumentParser
) -> None:
    """``teamdeck demo``, its ``--workspace`` saying what it means here (not the other
    commands' default: the demo never plays on $TEAMDECK_WORKSPACE or the current
    directory, so it cannot run agents on a real workspace by accident)."""
    demo = subparsers.add_parser(
        "demo",
        parents=[common_options(workspace_help=WORKSPACE_HELP)],
        help=summary("demo"),
        description="Copy the demo workspace into a temporary directory, run its agents with the runner "
        "(`teamdeck run`) while a scenario plays the lead's side, and open the TUI on it. Quitting stops them.",
    )
    demo.add_argument("--no-tui", action="store_true", help="run only the runner and the scenario (tests, benchmarks)")
    demo.add_argument(
        "--duration", type=float, metavar="S", help="stop after S seconds (default: until quit or Ctrl-C)"
    )
    demo.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="X",
        help="how much faster than real time the scenario and the agents go (default 1; 10 is 10x faster)",
    )
    demo.add_argument("--seed", type=int, default=0, help="fixes the choices of the scenario and the agents")
    demo.add_argument(
        "--keep", action="store_true", help="keep the temporary copy after quitting (default: it is removed)"
    )
    demo.set_defaults(handler=_demo, creates_workspace=True)


def prepare_workspace(given: str | None, scratch: Path) -> tuple[Path, bool]:
    """The directory to play on, and whether it is a fresh copy of the demo (rebased
    to now: its history ends a few minutes ago).

    Args:
        given: ``--workspace`` as typed, or None for a copy inside ``scratch``.
        scratch: the demo's temporary directory.

    Raises:
        Refused: ``given`` exists and is not a directory.
    """
    if given is None:
        target = scratch / COPY_NAME
    else:
        target = Path(given).expanduser().resolve()
        if target.exists() and not target.is_dir():
            raise Refused(f"Could not start the demo: {target} is not a directory")
        if target.is_dir() and any(target.iterdir()):
            return target, False
    shutil.copytree(data_dir("demo-workspace"), target, dirs_exist_ok=True)
    rebase(target, to=utc_now())
    return target, True


def _demo(args: argparse.Namespace, _ws: Workspace) -> Output:
    if args.speed <= 0:
        raise Refused("Could not start the demo: --speed must be positive")
    if args.duration is not None and args.duration < 0:
        raise Refused("Could not start the demo: --duration must not be negative")
    scratch = Path(tempfile.mkdtemp(prefix="teamdeck-demo-"))
    # A closed terminal or a dropped SSH session (SIGHUP) ends the demo as Ctrl-C does,
    # so the runner stops its runs and the copy is removed then too (by default SIGHUP
    # ends the process without running the cleanup below).
    signal.signal(signal.SIGHUP, signal.default_int_handler)
    try:
        return _play(scratch, vars(args).get("workspace"), args)
    finally:
        if not args.keep or not any(scratch.iterdir()):  # the demo's own directory is nobody's
            shutil.rmtree(scratch, ignore_errors=True)


def _play(scratch: Path, given: str | None, args: argparse.Namespace) -> Output:
    """Set up, run the runner and the scenario (and the TUI), stop them; what ran."""
    root, fresh = prepare_workspace(given, scratch)
    agents = install_agents(root)
    temporary = given is None and not args.keep
    kept = " (removed when you quit; --keep keeps it)" if temporary else ""
    what = "a fresh copy of the demo workspace" if fresh else "an existing workspace"
    log = scratch / "runner.log"
    told = "" if args.no_tui else f"; the runner's lines go to {log}; `?` in the TUI shows the workspace again"
    print(f"teamdeck demo: {root} ({what}){kept}; runner: {agents}{told}", file=sys.stderr, flush=True)
    since = iso(utc_now())
    started = time.monotonic()
    scenario = Scenario(Workspace.at(root), seed=args.seed, speed=args.speed)
    with _environment(environment(speed=args.speed, seed=args.seed)):
        if args.no_tui:
            _run_headless(root, scenario, args.duration)
        else:
            _run_with_tui(root, scenario, log, args)
    return _account(root, since, time.monotonic() - started, fresh, temporary, scenario)


@contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """``values`` in this process's environment while the demo runs (the runner passes
    its environment on to every run), as it was afterwards."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class _Hosted:
    """The runner host on a thread of its own; an error that ended it (another runner
    holds the workspace, ``agents:`` is wrong) is kept for the demo to say."""

    def __init__(self, ws: Workspace, say_line: Callable[[str], None]) -> None:
        self.ready = threading.Event()
        self.error: TeamdeckError | None = None

        def say(line: str) -> None:
            self.ready.set()  # its first line is said once it has had its first look
            say_line(line)

        self.host = RunnerHost(ws, say, signals=False)
        self.thread = threading.Thread(target=self._run, name="teamdeck-demo-runner", daemon=True)

    def _run(self) -> None:
        try:
            self.host.run()
        except TeamdeckError as err:
            self.error = err
        finally:
            self.ready.set()

    def start(self) -> None:
        self.thread.start()
        self.ready.wait(READY_WAIT_S)
        if self.error is not None:
            raise Refused(f"Could not start the demo's runner: {self.error}")

    def stop(self) -> None:
        self.host.stop()
        self.thread.join()


def _run_headless(root: Path, scenario: Scenario, duration: float | None) -> None:
    """The runner and the scenario until ``duration`` passes or Ctrl-C; the runner's
    lines on stderr."""
    hosted = _Hosted(Workspace.at(root), lambda line: print(line, file=sys.stderr, flush=True))
    stop = threading.Event()
    try:
        hosted.start()
        scenario.run(stop, duration=duration)
    except KeyboardInterrupt:
        stop.set()
    finally:
        hosted.stop()


def _run_with_tui(root: Path, scenario: Scenario, log: Path, args: argparse.Namespace) -> None:
    """The TUI in front, the runner and the scenario behind it; leaving the TUI stops them."""
    from teamdeck.tui import open_app  # Textual is imported only for the TUI

    app = open_app(Workspace.at(root), read_only=bool(getattr(args, "read_only", False)))
    app.runs_end_with_it = True  # leaving the TUI stops the runner below, and its runs

    def hang_up(_signum: int, _frame: object) -> None:
        """A closed terminal while the TUI runs: leave it as `q` does, so the cleanup
        below runs. A KeyboardInterrupt raised inside Textual's loop left the demo
        waiting forever, its input thread spinning on the dead terminal's end of file.

        What is still written goes to /dev/null: Textual's writer thread ends at its
        first write to the closed terminal (EIO), and the app then waits for good once
        30 writes queue up for it (frames still drawn, the shutdown's own)."""
        null = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.__stdout__, sys.__stderr__):
            if stream is not None:
                os.dup2(null, stream.fileno())
        os.close(null)
        try:
            asyncio.get_running_loop().call_soon_threadsafe(app.exit)
        except RuntimeError:  # the TUI's loop is not running (yet, or any more)
            raise KeyboardInterrupt from None

    signal.signal(signal.SIGHUP, hang_up)
    with log.open("a", encoding="utf-8") as out:
        hosted = _Hosted(Workspace.at(root), lambda line: print(line, file=out, flush=True))
        stop = threading.Event()
        try:
            hosted.start()
            thread = scenario.start(stop, duration=args.duration)
            try:
                app.run()
            finally:
                stop.set()
                thread.join()
        finally:
            hosted.stop()


def _account(root: Path, since: str, seconds: float, fresh: bool, removed: bool, scenario: Scenario) -> Output:
    """What ran: the runs the runner started since ``since`` (by outcome and member),
    and what the scenario wrote."""
    runs = [run for member in all_runs(Workspace.at(root)) for run in member.runs if run.createdAt >= since]
    outcomes = Counter(run.outcome or run.state for run in runs)
    members = Counter(f"{run.team}/{run.member}" for run in runs)
    lead = Counter(happened.label.split(" ", 1)[0] for happened in scenario.scheduler.history)
    text = f"demo ran {seconds:.1f} s on {root}" + (" (removed; --keep keeps it)" if removed else "")
    text += f": {len(runs)} run{'s' if len(runs) != 1 else ''} started by the runner"
    if runs:
        text += " (" + ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items())) + ")"
        text += "\n  " + "\n  ".join(f"{member}: {count}" for member, count in sorted(members.items()))
    if lead:
        text += "\nthe lead's side: " + ", ".join(f"{count} {kind}" for kind, count in sorted(lead.items()))
    if scenario.scheduler.errors:
        text += f"\n{len(scenario.scheduler.errors)} of its steps failed:\n" + "\n".join(scenario.scheduler.errors)
    return Output(
        data={
            "ok": True,
            "workspace": str(root),
            "fresh": fresh,
            "removed": removed,
            "seconds": round(seconds, 3),
            "runs": {"started": len(runs), "outcomes": dict(outcomes), "members": dict(members)},
            "lead": dict(lead),
            "errors": scenario.scheduler.errors,
        },
        text=text,
    )
