"""Reading plans and verdict histories into the read model.

A :class:`PlanView` is :func:`~teamdeck.protocol.plans.overview.plan_overview` kept for a
snapshot: the plan's state, its waves with each task's state and what blocks it, and
the next step. A :class:`TaskVerdicts` is a task's verdict history as
:func:`~teamdeck.protocol.guardians.verdict_history.list_verdicts` reads it. Both are read again only
when their files change (view/refresh/build.py maps changed paths here with :func:`plan_of_path`
and :func:`verdict_task_of_path`); a plan is also read again when one of its tasks
changes, since it shows their states.

Text is kept raw, as in the rest of the snapshot: fronts sanitise it.
"""

from __future__ import annotations

import json
from typing import Any

from teamdeck.errors import NotFound, TeamdeckError
from teamdeck.model.guardian import GuardianVerdictSnapshot
from teamdeck.protocol.guardians.verdict_history import list_verdicts
from teamdeck.protocol.plans.overview import PlanOverview, plan_overview
from teamdeck.protocol.task.listing import plan_ids
from teamdeck.store.paths import InvalidId, check_id
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.plans import FlagView, PlanView, TaskVerdicts, VerdictView

EVIDENCE_CHARS = 2000
"""The most characters of one evidence value kept (guardians already cut strings there)."""


def read_plans(ws: Workspace) -> dict[str, PlanView]:
    """Every plan under ``plans/``, by id."""
    views = {}
    for plan_id in plan_ids(ws):
        view = read_plan(ws, plan_id)
        if view is not None:
            views[plan_id] = view
    return views


def read_plan(ws: Workspace, plan_id: str, previous: PlanView | None = None) -> PlanView | None:
    """The plan as its files (and its tasks' files) say now.

    Args:
        ws: the workspace.
        plan_id: a valid plan id.
        previous: the plan as last shown; kept (with the problem) when plan.yaml broke.

    Returns:
        The view, or None when the plan is gone.
    """
    try:
        overview = plan_overview(ws, plan_id)
    except NotFound:
        return None
    except TeamdeckError as err:
        if previous is not None:
            return PlanView(**{**previous.__dict__, "problem": str(err)})
        return PlanView(id=plan_id, problem=str(err))
    return plan_view(overview)


def plan_view(overview: PlanOverview) -> PlanView:
    """A :class:`PlanOverview` frozen for the snapshot."""
    plan = overview.plan
    return PlanView(
        id=plan.id,
        title=plan.title,
        state=plan.state,
        team=plan.team,
        coordinator=plan.coordinator,
        current_wave=plan.currentWave,
        waves=tuple(tuple(wave) for wave in overview.waves),
        coordinator_state=overview.coordinator_state,
        approval=overview.approval.state if overview.approval else None,
        next_step=overview.next_step,
    )


def update_plans(
    ws: Workspace, plans: dict[str, PlanView], changed_plans: set[str], changed_tasks: set[str], *, relist: bool = False
) -> None:
    """Re-read, in ``plans``, the plans whose files changed and those showing a task that
    changed; with ``relist``, also pick up plans that appeared or disappeared."""
    todo = set(changed_plans)
    if changed_tasks:
        todo |= {plan_id for plan_id, view in plans.items() if view.task_ids & changed_tasks}
    if relist:
        present = set(plan_ids(ws))
        todo |= present - set(plans)
        for gone in set(plans) - present:
            plans.pop(gone)
    for plan_id in todo:
        view = read_plan(ws, plan_id, plans.get(plan_id))
        if view is None:
            plans.pop(plan_id, None)
        else:
            plans[plan_id] = view


def read_verdicts(ws: Workspace, task_id: str) -> TaskVerdicts | None:
    """The task's verdict history (None when it has none and no unreadable record)."""
    try:
        verdicts, problems = list_verdicts(ws, task_id)
    except TeamdeckError as err:
        return TaskVerdicts(task_id, (), (str(err),))
    if not verdicts and not problems:
        return None
    return TaskVerdicts(task_id, tuple(verdict_view(verdict) for verdict in verdicts), tuple(problems))


def verdict_view(verdict: GuardianVerdictSnapshot) -> VerdictView:
    """A verdict record as a :class:`VerdictView`."""
    return VerdictView(
        id=verdict.id,
        assignment=verdict.assignment,
        guardian=verdict.guardian,
        status=verdict.status,
        flags=tuple(FlagView(flag.code, flag.severity, flag.message, flag.path) for flag in verdict.flags),
        evidence=tuple((str(key), _evidence_text(value)) for key, value in verdict.evidence.items()),
        recommendations=tuple(verdict.recommendations),
        created_at=verdict.createdAt,
        duration_s=verdict.durationS,
    )


def _evidence_text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= EVIDENCE_CHARS else text[:EVIDENCE_CHARS] + "…"


# --- which files belong to what ----------------------------------------------------------


def plan_of_path(parts: tuple[str, ...]) -> str | None:
    """The plan id a workspace-relative path under ``plans/`` belongs to (None: the
    ``plans`` directory itself, or a name that is no plan id)."""
    if len(parts) < 2 or parts[0] != "plans":
        return None
    try:
        return check_id(parts[1], "plan id")
    except InvalidId:
        return None


def verdict_task_of_path(parts: tuple[str, ...]) -> str | None:
    """The task whose verdict history a workspace-relative path may change
    (``tasks/<id>/guardian/...``, or ``tasks/<id>`` itself appearing or going)."""
    if len(parts) < 2 or parts[0] != "tasks" or (len(parts) > 2 and parts[2] != "guardian"):
        return None
    return parts[1]
