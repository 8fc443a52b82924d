"""What the plan keys do to the files: run a plan (``teamdeck plan run``), as a
:class:`RunAction` message the widget posts; whether running it can do anything now is
asked of the plan machine's predicate. Like tui/panels/roster/actions.py: live/calls.py's
action; nothing here writes a file itself or shows anything optimistic.
"""

from __future__ import annotations

from teamdeck.live import calls
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.plans import PlanView


def plan_allows_run(plan: PlanView) -> bool:
    """Whether running the plan can do anything (it is readable and not final)."""
    from teamdeck.protocol.plans.machine import can_run_plan  # only once a plan is shown

    return plan.problem is None and can_run_plan(plan.state)


def run_plan(plan: PlanView, members: list[str]) -> RunAction:
    """``teamdeck plan run``: move the plan as far as it can go now."""
    return RunAction(calls.run_plan(plan.id, members))
