"""What the plan keys do to the files: run a plan (``teamdeck plan run``), as a
:class:`RunAction` message the widget posts; whether running it can do anything now is
asked of the plan machine's predicate. Like tui/panels/roster/actions.py: one protocol
call per action, imported when it runs, on the worker; nothing here writes a file
itself or shows anything optimistic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.live.actions import Action
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.plans import PlanView

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace


def plan_allows_run(plan: PlanView) -> bool:
    """Whether running the plan can do anything (it is readable and not final)."""
    from teamdeck.protocol.plans.machine import can_run_plan  # only once a plan is shown

    return plan.problem is None and can_run_plan(plan.state)


def run_plan(plan: PlanView, members: list[str]) -> RunAction:
    """``teamdeck plan run``: move the plan as far as it can go now."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.plans.machine import advance

        result = advance(ws, plan.id, members=members)
        waits = f"; waits for: {'; '.join(result.waiting)}" if result.waiting else ""
        return f"plan {plan.id} is {result.plan.state} ({len(result.moves)} move(s), {len(result.actions)} action(s)){waits}"

    return RunAction(Action(f"run plan {plan.id}", call))
