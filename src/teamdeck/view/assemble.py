"""The snapshot made from the refresher's state: tasks and teams in order, the gate
queue oldest first, every problem in one list."""

from __future__ import annotations

from teamdeck.store.workspace import Workspace
from teamdeck.view.event_tail import MAX_EVENTS, moment
from teamdeck.view.eventlog import EventRow
from teamdeck.view.read_state import ReadState
from teamdeck.view.snapshot import Decision, Problem, TaskView, TeamView, WorkspaceSnapshot
from teamdeck.view.team_files import TeamFiles, inbox_problems
from teamdeck.view.timeline import with_team_rows


def snapshot_of(state: ReadState, rows: tuple[EventRow, ...], notices: tuple[str, ...]) -> WorkspaceSnapshot:
    """The snapshot of what ``state`` holds, with the events tail ``rows`` and the
    one-time ``notices``."""
    tasks = tuple(state.tasks[task_id] for task_id in sorted(state.tasks))
    teams = tuple(state.team_views[name] for name in sorted(state.team_views))
    team_gates = (
        *(state.team_gates[name] for name in sorted(state.team_gates)),
        state.forge_gates,
        state.session_gates,
        state.run_gates,
    )
    gates = state.derive("gates", (*tasks, *team_gates), lambda: _gate_queue(tasks, team_gates))
    state.log_rows = rows
    return WorkspaceSnapshot(
        root=str(state.ws.root),
        taken_at=state.ws.clock(),
        teams=teams,
        tasks=tasks,
        gates=gates,
        events=with_team_rows(state, rows),
        events_complete=all(log.complete for log in state.logs.values()) and len(rows) < MAX_EVENTS,
        problems=_problems(state, tasks, teams),
        notices=notices,
        read_only=state.read_only,
        read_only_reason=state.read_only_reason,
        auto_join=state.auto_join,
        stale_after=state.stale_after,
        hide_ended=state.hide_ended,
        plans=tuple(state.plans[plan_id] for plan_id in sorted(state.plans)),
        verdicts=state.verdicts,
        issues=state.issues,
        issue_problems=state.issue_problems,
        team_tasks=tuple(state.task_list_views[team] for team in sorted(state.task_list_views)),
        runs=dict(state.runs),
        state=state,
    )


def _gate_queue(tasks: tuple[TaskView, ...], team_gates: tuple[tuple[Decision, ...], ...]) -> tuple[Decision, ...]:
    """Every open gate of the tasks, and every decision of the teams and of the forge
    outbox, oldest first."""
    gates = [gate for task in tasks for gate in task.open_gates]
    for gates_of_team in team_gates:
        gates += gates_of_team
    gates.sort(key=lambda gate: (moment(gate.created_at), gate.key))
    return tuple(gates)


def _problems(state: ReadState, tasks: tuple[TaskView, ...], teams: tuple[TeamView, ...]) -> tuple[Problem, ...]:
    problems = list(state.listing_problems)
    if state.settings_problem is not None:
        problems.append(state.settings_problem)
    problems += state.derive("task problems", tasks, lambda: _task_problems(tasks))
    files = tuple(state.teams.values())
    problems += state.derive("team problems", (*teams, *files), lambda: _team_problems(state.ws, teams, files))
    for log in state.logs.values():
        problems += [Problem.of(problem) for problem in log.problems]
    problems += [Problem(f"plans/{plan.id}", "", plan.problem) for plan in state.plans.values() if plan.problem]
    for verdicts in state.verdicts.values():
        problems += [Problem(f"tasks/{verdicts.task_id}/guardian", "", line) for line in verdicts.problems]
    for name in sorted(state.task_list_views):
        problems += state.task_list_views[name].problems
    return tuple(problems)


def _task_problems(tasks: tuple[TaskView, ...]) -> tuple[Problem, ...]:
    problems = []
    for task in tasks:
        if task.problem is not None:
            problems.append(task.problem)
        for worker in task.workers:
            problems += [Problem(f"tasks/{task.id}", "", line) for line in worker.problems]
    return tuple(problems)


def _team_problems(ws: Workspace, teams: tuple[TeamView, ...], files: tuple[TeamFiles, ...]) -> tuple[Problem, ...]:
    problems = [team.problem for team in teams if team.problem is not None]
    for team_files in files:
        problems += inbox_problems(ws, team_files)
    return tuple(problems)
