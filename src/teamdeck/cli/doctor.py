"""``teamdeck doctor``: each team's roster, handshakes, folded idles and delivery
problems, from the ledger (protocol/team/ledger/); exit 1 when a failure is found. A team
that ended (Claude Code removed its directory when its session ended) is read from its
archived roster and the messages teamdeck recorded, as the TUI reads it; what it shows
is history and does not fail doctor.

Everything a team member wrote reaches the terminal only through :func:`one_line` (S1).
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from typing import TYPE_CHECKING

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.errors import NotFound
from teamdeck.protocol.checks.hygiene import find_leftovers, sweep_temp_files
from teamdeck.protocol.common.intents import pending
from teamdeck.protocol.effects.interrupted import complete_pending
from teamdeck.protocol.guardians.verdict_history import edited_verdicts
from teamdeck.protocol.task.taskfile import task_ids
from teamdeck.protocol.team import teams
from teamdeck.protocol.team.archive import archived_teams
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.ledger.results import FAILURE_CLASSES, NOTICES, Ledger
from teamdeck.store.settings import load_settings
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line

if TYPE_CHECKING:
    from teamdeck.formats.task_lists import TaskList


def register_doctor(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    doctor = subparsers.add_parser("doctor", help=summary("doctor"), parents=[common])
    doctor.add_argument("team", metavar="TEAM", nargs="?", help="one team (default: all)")
    doctor.add_argument(
        "--repair", action="store_true", help="finish the actions a crash interrupted (otherwise only listed)"
    )
    doctor.set_defaults(handler=_doctor, finish_interrupted=False)


def _doctor(args: argparse.Namespace, ws: Workspace) -> Output:
    names, ignored = ([args.team], []) if args.team else teams.team_listing(ws)
    if not args.team:  # the teams that ended (their directory gone, their roster archived), as the TUI lists them
        names += [name for name in archived_teams(ws) if name not in names]  # not listed: its files are gone
    timeout = timedelta(seconds=load_settings(ws.root).shutdownTimeoutSeconds)
    reports, lines = [], []
    interrupted = _interrupted(ws, repair=args.repair)
    lines += interrupted
    leftovers = _leftovers(ws, repair=args.repair)
    lines += leftovers
    for name in names:
        try:
            ledger, ended = _ledger(ws, name, timeout)
        except Exception as err:
            if args.team:
                raise
            reports.append({"team": name, "problem": str(err)})
            lines.append(f"team {name}: {one_line(str(err), 300)}")
            continue
        tasks = teams.read_task_list(ws, name)
        report = {**ledger.to_json(), "ended": ended}
        report["tasks"] = {
            "visible": [task.to_json() for task in tasks.visible],
            "hidden": len(tasks.tasks) - len(tasks.visible),
            "problems": tasks.problems,
        }
        reports.append(report)
        lines += _doctor_lines(ledger, tasks, ended=ended)
    if not names:
        lines.append(f"no teams in {ws.root / 'teams'}")
    edited = [str(problem) for task_id in task_ids(ws) for problem in edited_verdicts(ws, task_id)]
    if edited:
        lines += [
            "verdicts edited by hand (the recorded ones stand):",
            *(f"  ! {one_line(line, 300)}" for line in edited),
        ]
    healthy = (
        all(report.get("healthy") or report.get("ended") for report in reports)
        and not edited
        and not (interrupted and not args.repair)
        and not (leftovers and not args.repair)
    )
    return Output(
        {
            "ok": True,
            "healthy": healthy,
            "teams": reports,
            "ignored": ignored,
            "editedVerdicts": edited,
            "interrupted": interrupted,
            "leftovers": leftovers,
        },
        "\n".join(lines),
        exit_code=0 if healthy else 1,  # a failure found (or a team unreadable): scripts and CI can tell
        warnings=ignored,
    )


def _interrupted(ws: Workspace, *, repair: bool) -> list[str]:
    """The actions a crash interrupted (protocol/common/intents.py): listed, or with ``repair``
    finished, one line each."""
    if repair:
        return complete_pending(ws)
    found, problems = pending(ws)
    return [
        *problems,
        *(
            f"interrupted {item.action} {item.args} ({ws.rel(item.path)}); run `teamdeck doctor --repair`"
            for item in found
        ),
    ]


def _leftovers(ws: Workspace, *, repair: bool) -> list[str]:
    """Temp files a crash left and lock directories left held (protocol/checks/hygiene.py),
    one line each; with ``repair`` the temp files are removed first and said so."""
    removed = [f"removed {path}: a temp file left by a crash" for path in sweep_temp_files(ws)] if repair else []
    found = [f"{leftover.path}: {leftover.message}" for leftover in find_leftovers(ws) if leftover.kind != "link"]
    return removed + [one_line(line, 300) for line in found]


def _ledger(ws: Workspace, team: str, timeout: timedelta) -> tuple[Ledger, bool]:
    """The team's ledger, and whether the team has ended: a team whose directory is gone
    is read from its archived roster and the messages recorded of it, as the TUI reads
    it (view/readers/team_files.py); the NotFound stands when nothing of it was kept."""
    try:
        return build_ledger(ws, team, shutdown_timeout=timeout), False
    except NotFound:
        from teamdeck.view.readers.team_files import read_ended_team

        files = read_ended_team(ws, team, timeout)
        if files is None or files.ledger is None:
            raise
        return files.ledger, True


def _doctor_lines(ledger: Ledger, tasks: TaskList, *, ended: bool = False) -> list[str]:
    config = ledger.config
    lines = [
        f"team {one_line(ledger.team)}  (lead: {one_line(config.lead_name)})  {one_line(config.description or '', 100)}"
    ]
    if ended:
        lines.append(
            "  ended: its directory is gone (its session is over); read from its archived roster and the messages "
            "teamdeck recorded: history, which does not make doctor fail"
        )
    lines.append("  members (isActive: the roster flag of config.json, not whether the member is working):")
    for member in ledger.members:
        state = "lead" if member.lead else ("isActive" if member.active else "inactive")
        line = (
            f"    {one_line(member.name, 32):<20} {one_line(member.agent_type or '-', 24):<16} {state:<9}"
            f" {member.unread} unread / {member.messages}"
        )
        fold = ledger.idles.get(member.name)
        if fold is not None:
            since = f"idle since {fold.idle_since}" if fold.idle_since else f"last idle {fold.last_at}"
            line += f"  {since} ({one_line(fold.last_reason or '?', 20)}; {fold.count} idle notification{'s' if fold.count != 1 else ''})"
        lines.append(line)
    if ledger.handshakes:
        lines.append("  handshakes:")
        for handshake in ledger.handshakes:
            flag = f"  [{FAILURE_CLASSES[handshake.failure]}]" if handshake.failure else ""
            lines.append(
                f"    {handshake.kind:<8} {one_line(handshake.request_id, 80)}  {handshake.state}{flag}: "
                f"{one_line(handshake.detail, 200)}"
            )
    if tasks.tasks or tasks.problems:
        counts: dict[str, int] = {}
        for task in tasks.visible:
            counts[task.status] = counts.get(task.status, 0) + 1
        summary = ", ".join(f"{count} {one_line(status, 30)}" for status, count in counts.items()) or "none"
        hidden = len(tasks.tasks) - len(tasks.visible)
        lines.append(f"  tasks: {summary}" + (f" (+{hidden} internal hidden)" if hidden else ""))
        lines += [f"    ! {one_line(problem, 300)}" for problem in tasks.problems]
    failures = ledger.failures
    notices = [finding for finding in ledger.findings if not finding.is_failure]
    if failures:
        lines.append("  failures:")
        lines += [f"    {FAILURE_CLASSES[f.code]}: {one_line(f.detail, 300)}" for f in failures]
    if notices:
        lines.append("  notices:")
        lines += [f"    {NOTICES.get(f.code, f.code)}: {one_line(f.detail, 300)}" for f in notices]
    if ledger.delete_blockers and not ended:
        lines.append(
            f"  team delete would be refused: {len(ledger.delete_blockers)} active member(s): "
            f"{', '.join(one_line(name, 64) for name in ledger.delete_blockers)}"
        )
    if not failures:
        lines.append("  no delivery or handshake failures")
    return lines
