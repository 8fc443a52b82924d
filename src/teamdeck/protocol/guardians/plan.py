"""The ``plan`` guardian: a coordinator plan's tasks are all done.

Verifies a plan's coordinator task (``plan`` in task.yaml names the plan): PASS when
every task of the plan is ``done``; each other task is a ``fail`` flag naming its state.
The plan supervisor runs it when the last wave passed (protocol/plans/machine.py).
"""

from __future__ import annotations

from teamdeck.errors import TeamdeckError
from teamdeck.model.guardian import Flag, GuardianResult
from teamdeck.protocol.guardians.context import GuardianContext
from teamdeck.protocol.task.planfile import load_plan
from teamdeck.protocol.task.taskfile import load_task


class PlanGuardian:
    """Every task of the plan is done."""

    code = "plan"
    description = "every task of the coordinator's plan is done"

    def verify(self, context: GuardianContext) -> GuardianResult:
        plan_id = context.task.get("plan")
        if not plan_id:
            return GuardianResult(
                flags=[Flag(code="not-a-plan", severity="fail", message=f"task {context.task_id} belongs to no plan")]
            )
        ws = context.open_workspace()
        plan = load_plan(ws, plan_id)
        states: dict[str, str] = {}
        flags = []
        for entry in plan.tasks:
            try:
                states[entry.id] = load_task(ws, entry.id).state
            except TeamdeckError as err:
                states[entry.id] = "unreadable"
                flags.append(Flag(code="unreadable-task", severity="fail", message=str(err)))
                continue
            if states[entry.id] != "done":
                flags.append(Flag(code="not-done", severity="fail", message=f"{entry.id} is {states[entry.id]}"))
        return GuardianResult(flags=flags, evidence={"plan": plan.id, "planState": plan.state, "tasks": states})
