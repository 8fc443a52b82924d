"""plan.yaml and its events.jsonl: the plan document, kept like a task.

A plan is one more :class:`~teamdeck.protocol.task.taskfile.DocumentKind`: every change is a
``plan.*`` event appended (fsync) before plan.yaml is replaced, under plan.yaml's lock,
and a crash in between is repaired by the next command (the same F12 guarantee as
tasks). The reducers live here, next to the kind they belong to, so a plan is never
folded without them.
"""

from __future__ import annotations

from typing import Any, cast

from teamdeck.errors import TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.plan import Plan
from teamdeck.protocol.task.listing import plan_ids
from teamdeck.protocol.task.replay import DocumentFold
from teamdeck.protocol.task.taskfile import DocumentKind, TaskChange, load_document, read_events, transact
from teamdeck.store.workspace import Workspace

PLANS = DocumentFold("plan", lists=("tasks",))
"""Plans: plan.yaml is the fold of plans/<id>/events.jsonl."""

PLAN = DocumentKind(PLANS, Plan, Workspace.plan_file, Workspace.plan_events_file)


@PLANS.reducer("plan.state_changed")
def _state_changed(plan: dict[str, Any], event: Event) -> bool:
    plan["state"] = event.payload["to"]
    plan["stateSince"] = event.ts
    if "wave" in event.payload:
        plan["currentWave"] = event.payload["wave"]
    return True


def load_plan(ws: Workspace, plan_id: str) -> Plan:
    """plan.yaml with any unapplied events folded in (nothing is written).

    Raises:
        NotFound: no such plan.
        InvalidFile: plan.yaml is not a valid plan.
    """
    return cast(Plan, load_document(ws, plan_id, PLAN))


def plan_events(ws: Workspace, plan_id: str) -> list[Event]:
    """The plan's events, in order."""
    return read_events(ws, plan_id, PLAN)


def change_plan(ws: Workspace, plan_id: str, decide: Any, *, action: str, create: bool = False) -> TaskChange:
    """:func:`~teamdeck.protocol.task.taskfile.transact` for a plan (``change.task`` is the Plan)."""
    return transact(ws, plan_id, decide, action=action, create=create, kind=PLAN)


def list_plans(ws: Workspace) -> tuple[list[Plan], list[str]]:
    """Every plan (id order) and one line per plan that could not be read."""
    plans, problems = [], []
    for plan_id in plan_ids(ws):
        try:
            plans.append(load_plan(ws, plan_id))
        except TeamdeckError as err:
            problems.append(str(err))
    return plans, problems
