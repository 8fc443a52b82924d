"""What a member is doing, as far as the files tell, and what counts as "something
happened" for seed 002's ``wait_for_agent``.

:func:`observe` reads a member's side of the workspace: whether it is active
(config.json), its latest idle notification (the team's ledger), the state of the
task waited on, and its reports (each ``final.json`` of a task it works on). A waiter
observes once, then again after each change of the watched files
(:func:`watched_paths`), and :func:`what_happened` compares the two. :func:`settled`
says whether there is nothing to wait for at all (the member is offline, the task is
final, or the member's report on the task is already in and final). Pure reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamdeck.clock import parse_iso
from teamdeck.errors import TeamdeckError
from teamdeck.model.task import Task
from teamdeck.protocol.coordination.delegation import worker_id_for
from teamdeck.protocol.task.lifecycle import TERMINAL
from teamdeck.protocol.task.taskfile import load_task, task_ids
from teamdeck.protocol.task.worker_outputs import read_worker_outputs
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.workspace import Workspace

FINAL_REPORTS = ("completed", "failed")
"""Report statuses after which a worker is done with a task (``blocked`` waits for a person)."""


@dataclass(frozen=True)
class SeenReport:
    """A member's final.json on one task, as read."""

    task_id: str
    agent_id: str
    status: str
    summary: str
    questions: tuple[str, ...]
    next_actions: tuple[str, ...]
    finished_at: str | None
    digest: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "task": self.task_id,
            "agentId": self.agent_id,
            "status": self.status,
            "summary": self.summary,
            "questions": list(self.questions),
            "nextActions": list(self.next_actions),
            "finishedAt": self.finished_at,
        }


@dataclass(frozen=True)
class AgentState:
    """What the files say about a member at one moment.

    Attributes:
        team, member: who (canonical name).
        active: ``isActive`` in config.json.
        idle_at: the timestamp of its newest idle notification, if any.
        idle_since: set when nothing it sent came after that notification.
        idle_reason: that notification's ``idleReason``.
        task_id: the task waited on, if one was named.
        task_state: that task's state (None when not named).
        assigned_at: when the member was last delegated that task.
        reports: task id → the member's report on it (tasks it works on).
    """

    team: str
    member: str
    active: bool
    idle_at: str | None = None
    idle_since: str | None = None
    idle_reason: str | None = None
    task_id: str | None = None
    task_state: str | None = None
    assigned_at: str | None = None
    reports: dict[str, SeenReport] = field(default_factory=dict)


def observe(ws: Workspace, team: str, member: str, task_id: str | None = None) -> AgentState:
    """Read what the files say about ``member`` now.

    Raises:
        NotFound: no such team, member or task.
        InvalidFile: config.json or the named task cannot be read.
    """
    config = read_team(ws, team)
    name = resolve_member(config, team, member, role="member")
    found = config.member(name)
    active = found.isActive if found is not None else True
    fold = next((fold for who, fold in build_ledger(ws, team).idles.items() if who.lower() == name.lower()), None)
    tasks = [load_task(ws, task_id)] if task_id is not None else _tasks_of(ws, team, name)
    reports: dict[str, SeenReport] = {}
    assigned_at = None
    for task in tasks:
        agents = {worker.id for worker in task.workers if (worker.member or "").lower() == name.lower()}
        agents.add(worker_id_for(name))
        if task.id == task_id:
            times = [worker.assignedAt for worker in task.workers if worker.id in agents and worker.assignedAt]
            assigned_at = max(times) if times else None
        for result in read_worker_outputs(ws, task.id):
            if result.agent_id in agents and result.output is not None:
                output = result.output
                reports[task.id] = SeenReport(
                    task.id,
                    result.agent_id,
                    output.status,
                    output.summary,
                    tuple(output.questions),
                    tuple(output.nextActions),
                    output.finishedAt,
                    result.digest,
                )
    return AgentState(
        team,
        name,
        active,
        idle_at=fold.last_at if fold else None,
        idle_since=fold.idle_since if fold else None,
        idle_reason=fold.last_reason if fold else None,
        task_id=task_id,
        task_state=tasks[0].state if task_id is not None else None,
        assigned_at=assigned_at,
        reports=reports,
    )


def _tasks_of(ws: Workspace, team: str, member: str) -> list[Task]:
    """The team's tasks that ``member`` works on (unreadable tasks are skipped)."""
    found = []
    for each in task_ids(ws):
        try:
            task = load_task(ws, each)
        except TeamdeckError:
            continue
        if task.team == team and any((worker.member or "").lower() == member.lower() for worker in task.workers):
            found.append(task)
    return found


def watched_paths(ws: Workspace, team: str, task_id: str | None) -> list[Path]:
    """Where a change can mean something happened: the team's files, and the task's
    directory (every task's, when none is named)."""
    return [ws.team_dir(team), ws.task_dir(task_id) if task_id is not None else ws.tasks_dir]


def settled(state: AgentState) -> dict[str, Any] | None:
    """What there is to say at once, before any waiting: the member is offline, the
    task is final, or the member's report on it is final and newer than its assignment."""
    if not state.active:
        return outcome(state, "offline")
    if state.task_id is None:
        return None
    report = state.reports.get(state.task_id)
    if report is not None and report.status in FINAL_REPORTS and _not_before(report.finished_at, state.assigned_at):
        return outcome(state, "reported", report)
    if state.task_state in TERMINAL:
        return outcome(state, "task-finished", report)
    return None


def what_happened(before: AgentState, after: AgentState) -> dict[str, Any] | None:
    """What changed between two observations that a waiter wants to hear about: a new
    or changed report, the task reaching a final state, the member going offline, or a
    new idle notification. None: nothing yet."""
    for task_id, report in after.reports.items():
        previous = before.reports.get(task_id)
        if previous is None or previous.digest != report.digest:
            return outcome(after, "reported", report)
    if after.task_state in TERMINAL and before.task_state not in TERMINAL:
        return outcome(after, "task-finished", after.reports.get(after.task_id or ""))
    if before.active and not after.active:
        return outcome(after, "offline")
    if after.idle_at is not None and after.idle_at != before.idle_at and after.idle_since is not None:
        return outcome(after, "idle")
    return None


def outcome(state: AgentState, event: str, report: SeenReport | None = None) -> dict[str, Any]:
    """A waiter's result: ``event`` (reported / task-finished / offline / idle / timeout)
    with the member's state and the report, if any."""
    return {
        "event": event,
        "member": state.member,
        "task": report.task_id if report is not None else state.task_id,
        "taskState": state.task_state,
        "active": state.active,
        "idleSince": state.idle_since,
        "idleReason": state.idle_reason if state.idle_since else None,
        "report": report.to_json() if report is not None else None,
    }


def _not_before(finished: str | None, assigned: str | None) -> bool:
    """Whether a report finished at ``finished`` came after an assignment at ``assigned``
    (true when either time is unknown or unreadable: the report is taken as current)."""
    if not finished or not assigned:
        return True
    try:
        return parse_iso(finished) >= parse_iso(assigned)
    except (ValueError, TypeError):
        return True
