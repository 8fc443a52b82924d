"""Plans advance by themselves (seed 002): every plan that is not
final is driven as far as it goes, as ``teamdeck plan run`` would (protocol/plans/
machine.py ``advance``, the same function): an approved plan starts, each wave's tasks
are delegated to the team's members (idle ones first), a wave whose crafters all
reported is verified by its guardians, PASS moves to the next wave, NEEDS_CHANGES sends
the recommendations to the crafter (a message: the runner wakes it), FAIL opens its
decision, and the plan reaches COMPLETED or waits in NEEDS_FIX by itself.
"""

from __future__ import annotations

from teamdeck.errors import TeamdeckError
from teamdeck.model.plan import Plan
from teamdeck.protocol.autowork.steps import AutoStep
from teamdeck.protocol.coordination.stall_scan import crafters_of
from teamdeck.protocol.effects.owed import idle_members
from teamdeck.protocol.guardians.process import Isolation
from teamdeck.protocol.plans.machine import PLAN_FINAL, advance
from teamdeck.protocol.task.planfile import list_plans
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.workspace import Workspace


def advance_plans(ws: Workspace, isolation: Isolation, steps: list[AutoStep], problems: list[str]) -> None:
    """Drive every plan that is not final and not waiting for its approval."""
    plans, unreadable = list_plans(ws)
    problems += unreadable
    for plan in plans:
        if plan.state in PLAN_FINAL or plan.state == "PLANNING":
            continue
        try:
            result = advance(ws, plan.id, members=crafters(ws, plan), isolation=isolation)
        except TeamdeckError as err:
            problems.append(f"plan {plan.id}: {err}")
            continue
        for move in result.moves:
            change, _, cause = move.partition(": ")
            steps.append(AutoStep("plan", plan.id, cause, change))
        for action in result.actions:
            steps.append(
                AutoStep("plan", plan.id, f"plan {plan.id} asked it on its way to {result.plan.state}", action)
            )


def crafters(ws: Workspace, plan: Plan) -> list[str]:
    """Who the plan's undelegated tasks go to: the team's idle crafters, then the others
    (never the lead, a coordinator or a gate: protocol/coordination/stall_scan.py ``crafters_of``)."""
    if plan.team is None:
        return []
    try:
        config = read_team(ws, plan.team)
    except TeamdeckError:
        return []
    idle = idle_members(ws, plan.team)
    return [*idle, *(name for name in crafters_of(config) if name not in idle)]
