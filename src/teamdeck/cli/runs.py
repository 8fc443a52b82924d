"""``teamdeck run`` (the runner; ``run stop``, ``run wake``) and ``teamdeck runs`` (what
ran: ``runs``, ``runs show RUN``). See docs/protocol.md, "Running the agents"."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.clock import duration, moment_of
from teamdeck.errors import NotFound
from teamdeck.model.run import RunRecord
from teamdeck.shapes.runs import run_detail_json, runs_json
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line, sanitize

if TYPE_CHECKING:
    from teamdeck.adapters.catchup_loop import CatchUpLoop


def register_run(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    run = subparsers.add_parser(
        "run",
        help=summary("run"),
        parents=[common],
        description="Run the team members configured under `agents:` in .teamdeck.yaml: wake each one that has "
        "unread work, watch its run, retry, stop. One runner per workspace; Ctrl-C stops it and its runs.",
    )
    run.add_argument("--team", metavar="TEAM", help="run only this team's members")
    run.add_argument("--once", action="store_true", help="run what is pending now (and its retries), then exit")
    run.set_defaults(handler=_run)
    actions = run.add_subparsers(dest="run_command", metavar="ACTION", required=False)
    stop = actions.add_parser("stop", parents=[common], help="stop a member's run (SIGTERM, grace, SIGKILL)")
    stop.add_argument("team", metavar="TEAM")
    stop.add_argument("member", metavar="MEMBER")
    stop.set_defaults(handler=_stop)
    wake = actions.add_parser("wake", parents=[common], help="run a member now (the runner starts it)")
    wake.add_argument("team", metavar="TEAM")
    wake.add_argument("member", metavar="MEMBER")
    wake.set_defaults(handler=_wake)


def register_runs(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    runs = subparsers.add_parser("runs", help=summary("runs"), parents=[common])
    runs.add_argument("--team", metavar="TEAM", help="only this team's runs")
    runs.add_argument("--all", action="store_true", help="every run (default: each member's last ten)")
    runs.set_defaults(handler=_list)
    shows = runs.add_subparsers(dest="runs_command", metavar="ACTION", required=False)
    show = shows.add_parser("show", parents=[common], help="one run: its record, events and output tail")
    show.add_argument("run_id", metavar="RUN", help="the run's id (a unique prefix of 6+ characters is enough)")
    show.set_defaults(handler=_show)


def _run(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.runner.hosting import RunnerHost  # the runs and, beside them, plans, reviews and stalls

    ws.require_writable("run the agents")
    say = (lambda line: print(line, file=sys.stderr, flush=True)) if getattr(args, "json", False) else _say
    beside = [] if args.once else _forge_catch_up(ws, say)  # a loop beside a runner that stays
    started = RunnerHost(ws, say, team=args.team, once=args.once, beside=beside).run()
    return Output({"started": started}, f"runner ended: {started} run{'s' if started != 1 else ''} started")


def _forge_catch_up(ws: Workspace, say: Callable[[str], None]) -> list[CatchUpLoop]:
    """``forge serve``'s catch-up loop (adapters/catchup_loop.py) when Gitea's API is
    configured (``$TEAMDECK_FORGE_URL`` or ``forge.url``, and ``$TEAMDECK_FORGE_TOKEN``):
    what the webhooks missed while nothing listened is applied at the start and every
    few minutes, and dispatches wake the agents like any message. Not with ``--once``: a
    catch-up is a loop beside a runner that stays."""
    from teamdeck.adapters.catchup_loop import CATCH_UP_EVERY_S, CatchUpLoop
    from teamdeck.adapters.gitea_api import api_from_env

    api = api_from_env(ws)
    if api is None:
        return []
    say(f"forge: catching up with {api.base_url} now and every {CATCH_UP_EVERY_S:g} s")
    return [CatchUpLoop(ws, api, CATCH_UP_EVERY_S, say=say)]


def _say(line: str) -> None:
    print(line, flush=True)


def _stop(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.runner.stop import stop_member

    done = stop_member(ws, args.team, args.member)
    return Output({"team": args.team, "member": args.member, "stopped": done}, done)


def _wake(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.protocol.runs.requests import request
    from teamdeck.runtime.config import named_settings
    from teamdeck.view.readers.runs import runner_holder as holder_of

    named_settings(ws, args.team, args.member)  # a wake the runner would never act on is refused
    record = request(ws, "wake", args.team, args.member)
    note = "" if holder_of(ws) else " (no runner runs this workspace: start `teamdeck run`)"
    return Output(record, f"wake of {args.team}/{args.member} asked of the runner{note}")


def _list(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.view.readers.runs import all_runs

    rows: list[RunRecord] = []
    for member in all_runs(ws, args.team):
        rows += member.runs if args.all else member.runs[-10:]
    rows.sort(key=lambda run: run.id)
    now = ws.clock()
    lines = [_line(run, now) for run in rows] or ["no runs recorded (runs/ is empty: is `teamdeck run` running?)"]
    return Output(runs_json(rows), "\n".join(lines))


def _line(run: RunRecord, now: datetime) -> str:
    """``r-…  crew/dev  failed     message  2026-…Z    1m30s  exit 2    $0.0100``: the
    run, its state, what woke it, when, how long it ran and its exit status."""
    state = "▶ running" if run.live else (run.outcome or run.state)
    cost = f" {run.cost_shown}" if run.cost_shown else ""
    unread = f" {run.unreadAfter} left unread" if run.unreadAfter else ""
    status = f"exit {run.exitStatus}" if run.exitStatus is not None else "-"
    return (
        f"{run.id}  {run.team}/{run.member}  {state:<10} {run.trigger:<8} {run.createdAt}  "
        f"{_took(run, now):>7}  {status:<8}{cost}{unread}"
    ).rstrip()


def _took(run: RunRecord, now: datetime) -> str:
    """How long the run ran (a live one: so far); ``-`` when that is not known: it
    never started, its times cannot be read, or it was lost (the runner that watched it
    died: its end, recorded as its start, is not when it ended)."""
    start = moment_of(run.startedAt or "")
    end = now if run.live else moment_of(run.endedAt or "")
    if start is None or end is None or run.outcome == "lost":
        return "-"
    return duration(end - start)


def _show(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.view.readers.runs import find_run, run_events, run_output

    run = find_run(ws, args.run_id)
    if run is None:
        raise NotFound(f"no run {args.run_id} (see `teamdeck runs`)")
    run_dir = ws.run_dir(run.team, run.member, run.id)
    events = run_events(ws, run)
    tails = run_output(ws, run)
    # What an agent wrote (its argv, error, result, events, output and stderr) reaches the
    # terminal sanitised (S21); --json keeps the values as they are.
    lines = [_line(run, ws.clock()), f"  argv: {one_line(' '.join(run.argv), 2000)}", f"  dir:  {ws.rel(run_dir)}"]
    for key in ("pid", "startedAt", "endedAt", "exitStatus", "error", "sessionId", "result"):
        value = getattr(run, key)
        if value is not None:
            lines.append(f"  {key}: {one_line(str(value), 2000)}")
    lines += [f"  {one_line(str(event.get('at')), 40)} {one_line(str(event.get('type')), 80)}" for event in events]
    for name, tail in tails.items():
        if tail:
            lines += [f"--- {name} (last lines)", sanitize(tail, 0)]
    return Output(run_detail_json(run, events, tails), "\n".join(lines))
