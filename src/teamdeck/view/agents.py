"""A team's members as an agent asks for them (seed 002's ``list_agents``): name,
role, model, the derived status the roster shows (view/readers/team_roster.py), unread messages,
whether an MCP server acts as it, and the tasks it works on."""

from __future__ import annotations

from typing import Any

from teamdeck.errors import NotFound
from teamdeck.protocol.task.lifecycle import TERMINAL
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.runs import RunState, run_state
from teamdeck.view.refresh.build import build_snapshot
from teamdeck.view.snapshot.workspace import MemberView, TaskView, WorkspaceSnapshot

TAIL_BUDGET = 0
"""No event log is needed for the roster: read only the minimum of each."""


def list_agents(ws: Workspace, team: str) -> list[dict[str, Any]]:
    """Every member of ``team``, lead first as in config.json.

    Raises:
        NotFound: no such team (or its config.json cannot be read: the message says why).
    """
    snapshot = build_snapshot(ws, tail_budget=TAIL_BUDGET)
    view = snapshot.team(team)
    if view is None:
        raise NotFound(f"No team '{team}' in {ws.root}")
    if view.problem is not None and not view.members:
        raise NotFound(f"Team '{team}' cannot be read: {view.problem.text}")
    return [
        _agent(
            member,
            _open_tasks(snapshot, team, member.name),
            run_state(snapshot.runs.get(f"{team}/{member.name}"), snapshot.taken_at),
        )
        for member in view.members
    ]


def _open_tasks(snapshot: WorkspaceSnapshot, team: str, member: str) -> list[TaskView]:
    """The team's tasks that are not final and that ``member`` works on, newest change first."""
    tasks = [
        task
        for task in snapshot.tasks
        if task.team == team
        and task.state not in TERMINAL
        and any((worker.member or "").lower() == member.lower() for worker in task.workers)
    ]
    return sorted(tasks, key=lambda task: task.updated_at, reverse=True)


def _agent(member: MemberView, tasks: list[TaskView], runs: RunState | None) -> dict[str, Any]:
    rows = [
        {
            "id": task.id,
            "title": task.title,
            "state": task.state,
            "openGates": [gate.gate_id for gate in task.open_gates],
        }
        for task in tasks
    ]
    return {
        "name": member.name,
        "role": "lead" if member.lead else (member.agent_type or ""),
        "agentType": member.agent_type,
        "teamRole": member.role or "none",
        "model": member.model,
        "active": member.active,
        "status": member.status,
        "since": member.since or None,
        "detail": member.detail or None,
        "unread": member.unread,
        "lastActivity": member.last_activity or None,
        "connected": member.connected or None,
        "currentTask": rows[0] if rows else None,
        "tasks": rows,
        "running": runs is not None and runs.running,
        "run": runs.to_json() if runs is not None else None,
    }
