"""A snapshot as plain JSON data (``teamdeck status --json``; scripts and agents).

Text stays as the files have it: JSON output is not a terminal, and a program reading
it needs the real values.
"""

from __future__ import annotations

from typing import Any

from teamdeck.clock import iso
from teamdeck.shapes.decisions import decision_json
from teamdeck.view.figures.overview import overview
from teamdeck.view.readers.runs import run_state
from teamdeck.view.snapshot.workspace import (
    MemberView,
    Problem,
    TaskView,
    TeamTaskListView,
    TeamTaskView,
    TeamView,
    WorkspaceSnapshot,
)


def snapshot_json(snapshot: WorkspaceSnapshot) -> dict[str, Any]:
    """Tasks, teams, the gate queue, problems and the overview counts.

    The inboxes and events are left out (``teamdeck inbox`` and the logs have them).
    """
    counts = overview(snapshot)
    return {
        "ok": True,
        "workspace": snapshot.root,
        "takenAt": iso(snapshot.taken_at),
        "readOnly": snapshot.read_only,
        "overview": {
            "teams": counts.teams,
            "tasks": counts.tasks,
            "members": counts.members,
            "active": counts.active,
            "idle": counts.idle,
            "offline": counts.offline,
            "gatesWaiting": counts.decisions,
            "oldestGateAge": counts.oldest_decision_age or None,
            "unread": counts.unread,
            "problems": counts.problems,
            "teamTasks": counts.team_tasks,
            "stalled": counts.stalled,
        },
        "tasks": [_task(task) for task in snapshot.tasks],
        "gates": [decision_json(decision) for decision in snapshot.decisions],
        "teams": [_team(team, snapshot) for team in snapshot.teams],
        "teamTasks": [_task_list(listing) for listing in snapshot.team_tasks],
        "problems": [_problem(problem) for problem in snapshot.problems],
    }


def _task_list(listing: TeamTaskListView) -> dict[str, Any]:
    """A team's Claude Code task list: the visible tasks, how many internal ones are
    hidden, and the files that are not valid tasks."""
    return {
        "team": listing.team,
        "tasks": [_team_task(task) for task in listing.visible],
        "hidden": listing.hidden,
        "problems": [_problem(problem) for problem in listing.problems],
    }


def _team_task(task: TeamTaskView) -> dict[str, Any]:
    return {
        "id": task.id,
        "subject": task.subject,
        "status": task.status,
        "owner": task.owner,
        "activeForm": task.active_form or None,
        "blockedBy": list(task.blocked_by),
        "blocks": list(task.blocks),
        "stalled": task.stalled or None,
        "reported": task.reported or None,
        "file": task.path,
    }


def _problem(problem: Problem) -> dict[str, str]:
    return {"file": problem.path, "where": problem.where, "problem": problem.why}


def _task(task: TaskView) -> dict[str, Any]:
    return {
        "id": task.id,
        "title": task.title,
        "state": task.state,
        "team": task.team,
        "updatedAt": task.updated_at,
        "revision": task.revision,
        "workersByStatus": task.workers_by_status(),
        "workers": [
            {
                "id": worker.id,
                "status": worker.status,
                "member": worker.member,
                "summary": worker.summary,
                "questions": list(worker.questions),
                "problems": list(worker.problems),
            }
            for worker in task.workers
        ],
        "gates": [decision_json(gate) for gate in task.gates],
        "joinedSummary": task.summary_path,
        "problem": _problem(task.problem) if task.problem else None,
    }


def _team(team: TeamView, snapshot: WorkspaceSnapshot) -> dict[str, Any]:
    return {
        "name": team.name,
        "description": team.description,
        "lead": team.lead,
        "unread": team.unread,
        "members": [_member(member, team, snapshot) for member in team.members],
        "problem": _problem(team.problem) if team.problem else None,
        "markers": list(team.markers),
        "session": team.session or None,
        "ended": team.ended,
    }


def _member(member: MemberView, team: TeamView, snapshot: WorkspaceSnapshot) -> dict[str, Any]:
    runs = run_state(snapshot.runs.get(f"{team.name}/{member.name}"), snapshot.taken_at)
    return {
        "name": member.name,
        "agentType": member.agent_type,
        "teamRole": member.role,
        "model": member.model,
        "color": member.color,
        "lead": member.lead,
        "active": member.active,
        "status": member.status,
        "since": member.since or None,
        "detail": member.detail,
        "unread": member.unread,
        "lastActivity": member.last_activity or None,
        "markers": list(member.markers),
        "pendingShutdown": member.pending_shutdown,
        "pendingPlan": member.pending_plan,
        "inboxProblem": _problem(member.inbox_problem) if member.inbox_problem else None,
        "run": runs.to_json() if runs is not None else None,
    }


def inbox_json(member: MemberView) -> dict[str, Any]:
    """A member's inbox as the live view holds it (oldest first, idle notifications
    folded): what ``teamdeck serve`` answers an ``inbox`` query with."""
    return {
        "team": member.team,
        "member": member.name,
        "unread": member.unread,
        "problem": _problem(member.inbox_problem) if member.inbox_problem else None,
        "messages": [
            {
                "kind": message.kind,
                "from": message.sender,
                "timestamp": message.timestamp,
                "summary": message.summary,
                "text": message.text,
                "read": message.read,
                "requestId": message.request_id,
                "count": message.count,
            }
            for message in member.inbox
        ],
    }
