"""The snapshot made from the refresher's state: tasks and teams in order, the decision
queue oldest first, every problem in one list."""

from __future__ import annotations

import bisect
from datetime import datetime
from typing import cast

from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.team_files import TeamFiles, inbox_problems
from teamdeck.view.refresh.log_merge import MAX_EVENTS, moment
from teamdeck.view.refresh.read_state import ReadState
from teamdeck.view.refresh.timeline import with_team_rows
from teamdeck.view.snapshot.events import EventRow
from teamdeck.view.snapshot.workspace import Decision, Problem, TaskView, TeamView, WorkspaceSnapshot


def snapshot_of(state: ReadState, rows: tuple[EventRow, ...], notices: tuple[str, ...]) -> WorkspaceSnapshot:
    """The snapshot of what ``state`` holds, with the events tail ``rows`` and the
    one-time ``notices``."""
    tasks = tuple(state.tasks[task_id] for task_id in sorted(state.tasks))
    teams = tuple(state.team_views[name] for name in sorted(state.team_views))
    other_sources = (
        *(state.team_decisions[name] for name in sorted(state.team_decisions)),
        state.forge_decisions,
        state.session_decisions,
        state.runner_decisions,
    )
    decisions = _queue(state, (*tasks, *other_sources))
    state.log_rows = rows
    return WorkspaceSnapshot(
        root=str(state.ws.root),
        taken_at=state.ws.clock(),
        teams=teams,
        tasks=tasks,
        decisions=decisions,
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


Source = TaskView | tuple[Decision, ...]
"""What decisions come from: a task (its open gates) or a team's, the forge's,
the sessions' or the runs' decisions."""

FEW = 8
"""At most this many changed sources update the last queue in place; more sort it all."""


def _queue(state: ReadState, sources: tuple[Source, ...]) -> tuple[Decision, ...]:
    """The decision queue (:func:`_sorted_queue`) of ``sources``: the last one when they are
    the same objects; when a few of them changed (a decision changes one task), the
    last one without their old decisions and with their new ones put in order, where
    sorting 2,500 decisions again took most of a refresh at 10x."""
    kept = state.derived.get("decisions")
    if kept is not None and len(kept[0]) == len(sources):
        old_sources, queue = cast(tuple[tuple[Source, ...], tuple[Decision, ...]], kept)
        changed = [index for index, (was, now) in enumerate(zip(old_sources, sources, strict=True)) if was is not now]
        if len(changed) <= FEW:
            queue = _updated(queue, [old_sources[i] for i in changed], [sources[i] for i in changed])
            state.derived["decisions"] = (sources, queue)
            return queue
    queue = _sorted_queue(sources)
    state.derived["decisions"] = (sources, queue)
    return queue


def _sorted_queue(sources: tuple[Source, ...]) -> tuple[Decision, ...]:
    """Every open gate of the tasks, and every decision of the teams and of the forge
    outbox, oldest first."""
    decisions = [decision for source in sources for decision in _decisions(source)]
    decisions.sort(key=_order)
    return tuple(decisions)


def _updated(queue: tuple[Decision, ...], old: list[Source], new: list[Source]) -> tuple[Decision, ...]:
    """``queue`` without the decisions of the ``old`` sources, with those of the ``new``."""
    if not old:
        return queue
    gone = {id(decision) for source in old for decision in _decisions(source)}
    kept = [decision for decision in queue if id(decision) not in gone] if gone else list(queue)
    for decision in (decision for source in new for decision in _decisions(source)):
        bisect.insort(kept, decision, key=_order)
    return tuple(kept)


def _decisions(source: Source) -> tuple[Decision, ...]:
    return source.open_gates if isinstance(source, TaskView) else source


def _order(decision: Decision) -> tuple[datetime, str]:
    return (moment(decision.created_at), decision.key)


def _problems(state: ReadState, tasks: tuple[TaskView, ...], teams: tuple[TeamView, ...]) -> tuple[Problem, ...]:
    problems = list(state.listing_problems)
    if state.settings_problem is not None:
        problems.append(state.settings_problem)
    if state.agents_problem is not None and state.agents_problem != state.settings_problem:
        problems.append(state.agents_problem)
    problems += state.derive("task problems", tasks, lambda: _task_problems(state, tasks))
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


def _task_problems(state: ReadState, tasks: tuple[TaskView, ...]) -> tuple[Problem, ...]:
    """Every task's problems, in task order; each task's kept while it is the same
    object (a decision at 10x changes one task of 1,000: its 5,800 workers were walked
    again on every change)."""
    last = state.derived.get("problems by task")
    before = cast(dict[str, tuple[TaskView, tuple[Problem, ...]]], last[1] if last is not None else {})
    kept: dict[str, tuple[TaskView, tuple[Problem, ...]]] = {}
    problems: list[Problem] = []
    for task in tasks:
        found = before.get(task.id)
        if found is None or found[0] is not task:
            found = (task, _problems_of(task))
        kept[task.id] = found
        problems += found[1]
    state.derived["problems by task"] = ((), kept)
    return tuple(problems)


def _problems_of(task: TaskView) -> tuple[Problem, ...]:
    problems = [task.problem] if task.problem is not None else []
    for worker in task.workers:
        if worker.problems:
            problems += [Problem(f"tasks/{task.id}", "", line) for line in worker.problems]
    return tuple(problems)


def _team_problems(ws: Workspace, teams: tuple[TeamView, ...], files: tuple[TeamFiles, ...]) -> tuple[Problem, ...]:
    problems = [team.problem for team in teams if team.problem is not None]
    for team_files in files:
        problems += inbox_problems(ws, team_files)
    return tuple(problems)
