"""``teamdeck status``: the workspace at a glance - tasks, the decisions waiting, teams.

Rendered from the same read model as the TUI (view/), so both always agree. Text
written by agents is sanitised to one line before it reaches the terminal (R9).
"""

from __future__ import annotations

import argparse

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line
from teamdeck.view.build import build_snapshot
from teamdeck.view.export import snapshot_json
from teamdeck.view.overview import age, overview
from teamdeck.view.snapshot import MemberView, TaskView, TeamTaskListView, TeamTaskView, WorkspaceSnapshot


def register(subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    status = subparsers.add_parser("status", parents=[common], help=summary("status"))
    status.set_defaults(handler=_status)


def _status(_args: argparse.Namespace, ws: Workspace) -> Output:
    snapshot = build_snapshot(ws)
    return Output(data=snapshot_json(snapshot), text=render_status(snapshot))


REQUEST_LABELS = {"plan-approval": "plan", "permission": "permission", "shutdown-stuck": "shutdown"}
"""How a team's request in the decision queue is named, by gate kind."""


def render_status(snapshot: WorkspaceSnapshot) -> str:
    """The status as text for a terminal (every agent-written value sanitised)."""
    counts = overview(snapshot)
    head = (
        f"workspace {one_line(snapshot.root, 300)}: {counts.teams} team(s), {counts.members} member(s) "
        f"({counts.active} active, {counts.idle} idle, {counts.offline} offline), {counts.tasks} task(s), "
        f"{counts.unread} unread"
    )
    if counts.team_tasks:
        head += f", {counts.team_tasks} team task(s) ({counts.stalled} stalled)"
    if snapshot.read_only:
        head += f"; read-only ({one_line(snapshot.read_only_reason)})"
    lines = [head, ""]
    if snapshot.gates:
        lines.append(f"DECISIONS WAITING ({counts.gates}, oldest {counts.oldest_gate_age})")
        for gate in snapshot.gates:
            what = (
                f"gate {gate.gate_id}" if gate.kind == "task-gate" else f"{REQUEST_LABELS[gate.kind]} {gate.request_id}"
            )
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
    lines += ["", "TEAMS" if snapshot.teams else "no teams"]
    for team in snapshot.teams:
        active = sum(1 for member in team.members if member.active)
        description = f" — {one_line(team.description, 80)}" if team.description else ""
        lines.append(f"  {team.name}{description} ({len(team.members)} members, {active} active, {team.unread} unread)")
        lines += [_member_line(member, snapshot) for member in team.members]
        lines += [f"      ! {one_line(marker, 160)}" for marker in team.markers]
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
    return line


def _member_line(member: MemberView, snapshot: WorkspaceSnapshot) -> str:
    role = "lead" if member.lead else one_line(member.agent_type or "member", 30)
    status: str = member.status
    if member.since and member.status in ("idle", "shutdown-requested", "shutdown-stuck", "awaiting"):
        status += f" {age(member.since, snapshot.taken_at)}"
    unread = f"  {member.unread} unread" if member.unread else ""
    line = f"    {one_line(member.name, 40):<20} {role:<16} {status}{unread}"
    if member.markers:
        line += "  ! " + one_line("; ".join(member.markers), 160)
    if member.inbox_problem is not None:
        line += "  ! " + one_line(member.inbox_problem.text, 160)
    return line
