"""``teamdeck status``: the workspace at a glance - tasks, the decisions waiting, teams.

Rendered from the same read model as the TUI (view/), so both always agree. Text
written by agents is sanitised to one line before it reaches the terminal (R9).
"""

from __future__ import annotations

import argparse
from datetime import timedelta

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output, refuse_outside_a_workspace
from teamdeck.cli.hosts import add_host_options, hosts_asked, status_of_hosts
from teamdeck.decisions.registry import spec_of
from teamdeck.shapes.snapshot import snapshot_json
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line
from teamdeck.view.figures.liveness import has_ended, is_stale, quiet_since, stale_in
from teamdeck.view.figures.overview import age, overview
from teamdeck.view.readers.runs import run_state
from teamdeck.view.refresh.build import build_snapshot
from teamdeck.view.snapshot.workspace import (
    RESTING,
    MemberView,
    TaskView,
    TeamTaskListView,
    TeamTaskView,
    TeamView,
    WorkspaceSnapshot,
)


def register_status(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    status = subparsers.add_parser("status", parents=[common], help=summary("status"))
    status.add_argument(
        "--hide-ended",
        action="store_true",
        help="leave out teams that have ended (every member offline, or quiet for staleAfterSeconds); "
        "hideEndedTeams in .teamdeck.yaml makes it the default",
    )
    add_host_options(status)
    status.set_defaults(handler=_status, several_workspaces=True)


def _status(args: argparse.Namespace, ws: Workspace) -> Output:
    hosts = hosts_asked(args)
    if hosts is not None:
        return status_of_hosts(hosts)
    refuse_outside_a_workspace(args, ws, "status")
    from teamdeck.protocol.effects.owed import stalls_now

    snapshot = build_snapshot(ws)
    stalls = stalls_now(ws)
    data = snapshot_json(snapshot)
    data["stalls"] = [
        {
            "team": stall.team,
            "member": stall.member,
            "task": stall.task_id,
            "work": stall.kind,
            "subject": stall.subject or stall.task_id,
            "why": stall.why,
            "since": stall.since.isoformat(),
            "idleSeconds": round(stall.idle_s),
            "nudges": stall.nudges,
            "decision": stall.gate_id,
        }
        for stall in stalls
    ]
    marks = {(stall.team, stall.member.lower()): f"stalled: {stall.line}" for stall in stalls}
    return Output(data=data, text=render_status(snapshot, hide_ended=args.hide_ended, stalled=marks))


def render_status(
    snapshot: WorkspaceSnapshot, *, hide_ended: bool = False, stalled: dict[tuple[str, str], str] | None = None
) -> str:
    """The status as text for a terminal (every agent-written value sanitised).

    Member counts are of the derived state (view/figures/liveness.py): ``active`` is working,
    awaiting or shutting down, and not stale; config.json's ``isActive`` flag is named
    as such where it is shown. ``stalled``: (team, member lower-cased) -> why the member
    counts as stalled (protocol/coordination/stall_scan.py), said on its line.
    """
    counts = overview(snapshot)
    head = (
        f"workspace {one_line(snapshot.root, 300)}: {counts.teams} team(s), {counts.members} member(s) "
        f"({_liveness(counts.active, counts.idle, counts.offline, counts.stale)}), {counts.tasks} task(s), "
        f"{counts.unread} unread"
    )
    if counts.team_tasks:
        head += f", {counts.team_tasks} team task(s) ({counts.stalled} stalled)"
    if snapshot.read_only:
        head += f"; read-only ({one_line(snapshot.read_only_reason)})"
    lines = [head, ""]
    if snapshot.decisions:
        lines.append(f"DECISIONS WAITING ({counts.decisions}, oldest {counts.oldest_decision_age})")
        for gate in snapshot.decisions:
            what = spec_of(gate).what(gate)
            lines.append(
                f"  {age(gate.created_at, snapshot.taken_at):>4}  {one_line(gate.source)}  "
                f"{one_line(what, 80)}  {one_line(gate.title, 120)}"
            )
    else:
        lines.append(f"no decisions waiting — {counts.scanned()}")
    lines += ["", "TASKS" if snapshot.tasks else ("no teamdeck tasks" if counts.team_tasks else "no tasks")]
    lines += [_task_line(task) for task in snapshot.tasks]
    for listing in snapshot.team_tasks:
        if not listing.tasks and not listing.problems:
            continue  # an empty list (a team that has not made a task yet) says nothing
        lines += ["", _task_list_head(listing)]
        lines += [_team_task_line(task) for task in listing.visible]
    now, after = snapshot.taken_at, snapshot.stale_after
    hide_ended = hide_ended or snapshot.hide_ended
    shown = [team for team in snapshot.teams if not (hide_ended and has_ended(team, now, after))]
    lines += ["", "TEAMS" if snapshot.teams else "no teams"]
    if counts.stale:
        lines.append(f"  (stale: no message sent or received for {_duration(after)} or more; staleAfterSeconds)")
    for team in shown:
        lines.append(_team_line(team, snapshot))
        lines += [
            _member_line(member, team, snapshot)
            + (
                f"  ! {one_line(why, 160)}"
                if (why := (stalled or {}).get((team.name, member.name.lower())))
                and not any(marker.startswith("stalled: ") for marker in member.markers)  # the roster says it already
                else ""
            )
            for member in team.members
        ]
        lines += [f"      ! {one_line(marker, 160)}" for marker in team.markers]
    if len(shown) < len(snapshot.teams):
        lines.append(f"  ({len(snapshot.teams) - len(shown)} ended team(s) hidden: --hide-ended or hideEndedTeams)")
    elif counts.ended:
        lines.append(f"  ({counts.ended} of them ended: --hide-ended leaves them out)")
    if snapshot.problems:
        lines += ["", f"PROBLEMS ({len(snapshot.problems)})"]
        lines += [f"  {one_line(problem.text, 240)}" for problem in snapshot.problems]
    return "\n".join(lines)


def _task_line(task: TaskView) -> str:
    if task.problem is not None and not task.title:
        return f"  {task.id}  unreadable: {one_line(task.problem.text, 160)}"
    workers = (
        ", ".join(f"{count} {status}" for status, count in sorted(task.workers_by_status().items())) or "no workers"
    )
    open_gates = task.open_gates
    gates = f"{len(open_gates)} gate(s) waiting" if open_gates else f"{len(task.gates)} gate(s), none waiting"
    return f"  {task.id}  {task.state}  {one_line(task.title, 60)}  [{workers}; {gates}]"


def _task_list_head(listing: TeamTaskListView) -> str:
    """``TEAM TASKS alpha (3, 1 stalled, 2 internal hidden)``."""
    parts = [str(len(listing.visible))]
    if listing.stalled:
        parts.append(f"{len(listing.stalled)} stalled")
    if listing.hidden:
        parts.append(f"{listing.hidden} internal hidden")
    if listing.problems:
        parts.append(f"{len(listing.problems)} bad file(s), see PROBLEMS")
    return f"TEAM TASKS {listing.team} ({', '.join(parts)})"


def _team_task_line(task: TeamTaskView) -> str:
    """``  #2  in_progress  owner bob  Migrate schema  [blocked by #1]  ! STALLED: ...``."""
    line = (
        f"  #{task.id:<4} {one_line(task.status, 20):<12} owner {one_line(task.owner or '-', 32):<18} "
        f"{one_line(task.subject, 80)}"
    )
    if task.blocked_by:
        line += "  [blocked by " + ", ".join(f"#{one_line(other, 12)}" for other in task.blocked_by) + "]"
    if task.stalled:
        line += f"  ! STALLED: {one_line(task.stalled, 120)}"
    if task.reported:
        line += f"  reported {one_line(task.reported, 120)}"
    return line


def _liveness(active: int, idle: int, offline: int, stale: int) -> str:
    """``3 active, 1 idle, 0 offline, 4 stale`` (stale only when there are any)."""
    return f"{active} active, {idle} idle, {offline} offline" + (f", {stale} stale" if stale else "")


def _duration(span: timedelta) -> str:
    hours, seconds = divmod(int(span.total_seconds()), 3600)
    if hours and not seconds:
        return f"{hours}h"
    return f"{int(span.total_seconds())}s"


def _team_line(team: TeamView, snapshot: WorkspaceSnapshot) -> str:
    """``  alpha — desc (5 members: 2 active, 1 idle, 0 offline, 2 stale; 4 unread)``,
    ``ENDED`` when every member is offline or stale."""
    now, after = snapshot.taken_at, snapshot.stale_after
    stale = stale_in(team, now, after)
    idle = sum(member.status in RESTING and member not in stale for member in team.members)
    offline = team.statuses["offline"]
    active = len(team.members) - len(stale) - idle - offline
    description = f" — {one_line(team.description, 80)}" if team.description else ""
    ended = "  ENDED" if has_ended(team, now, after) else ""
    if team.ended:
        ended = "  ENDED (directory gone: last known roster)"
    if team.session:
        description += f" · session {one_line(team.session, 64)}"
    return (
        f"  {team.name}{description} ({len(team.members)} members: {_liveness(active, idle, offline, len(stale))}; "
        f"{team.unread} unread){ended}"
    )


def _member_line(member: MemberView, team: TeamView, snapshot: WorkspaceSnapshot) -> str:
    role = "lead" if member.lead else one_line(member.role or member.agent_type or "member", 30)
    status = f"failed ×{member.run_failures}" if member.status == "failed" else member.status
    if member.since and member.status not in ("working", "offline", "shutdown-approved"):
        status += f" {age(member.since, snapshot.taken_at)}"
    if is_stale(member, team, snapshot.taken_at, snapshot.stale_after):
        since = quiet_since(member, team)
        quiet = age(since.isoformat(), snapshot.taken_at) if since else ""
        status = f"stale {quiet} (last seen {status})"
    unread = f"  {member.unread} unread" if member.unread else ""
    line = f"    {one_line(member.name, 40):<20} {role:<16} {status}{unread}"
    runs = run_state(snapshot.runs.get(f"{team.name}/{member.name}"), snapshot.taken_at)
    if runs is not None:
        line += "  " + runs.phrase(age(runs.since, snapshot.taken_at) if runs.since else "")
    if member.markers:
        line += "  ! " + one_line("; ".join(member.markers), 160)
    if member.inbox_problem is not None:
        line += "  ! " + one_line(member.inbox_problem.text, 160)
    return line
