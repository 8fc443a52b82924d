"""What the lifecycle keys do to the files: transition, cancel, retry and verify
a task, run a plan. Like tui/actions.py: one protocol call per action, as a
:class:`RunAction` message the widget posts (the app's action runner runs it and has
exactly what the call wrote read); nothing here writes a file itself or shows anything
optimistic.

Which actions a task or plan allows right now (for the keys, the footer and the
palette) is asked of the protocol's predicates (protocol/task/allowed.py), so every front agrees.
The protocol modules that write are imported by each call, on the worker (as in
tui/actions.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.live.runner import Action
from teamdeck.protocol.task.allowed import task_actions_allowed
from teamdeck.tui.messages import RunAction
from teamdeck.view.plans import PlanView
from teamdeck.view.snapshot import TaskView

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace


def task_allows(task: TaskView, action: str) -> bool:
    """Whether lifecycle ``action`` (protocol/task/allowed.py's TASK_ACTIONS) is allowed for
    the task now: the protocol's predicates, asked with what the snapshot holds."""
    allowed = task_actions_allowed(
        task.state,
        [(gate.gate_id or "", gate.subkind) for gate in task.open_gates],
        unreadable=task.problem is not None and task.state == "?",
    )
    return action in allowed


def plan_allows_run(plan: PlanView) -> bool:
    """Whether running the plan can do anything (it is readable and not final)."""
    from teamdeck.protocol.plans.machine import can_run_plan  # only once a plan is shown

    return plan.problem is None and can_run_plan(plan.state)


def move(task: TaskView, target: str, reason: str | None) -> RunAction:
    """Move ``task`` to ``target`` (the lifecycle table decides; a refusal is a notice)."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.task.lifecycle import transition

        change = transition(ws, task.id, target, reason=reason or "moved by a person in teamdeck")
        return f"task {task.id} is {change.task.state}"

    return RunAction(Action(f"move task {task.id} to {target}", call))


def cancel_task(task: TaskView, reason: str | None) -> RunAction:
    """Cancel ``task``; its open gates are closed."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.task.lifecycle import cancel

        change = cancel(ws, task.id, reason=reason or "")
        return f"task {task.id} is {change.task.state}"

    return RunAction(Action(f"cancel task {task.id}", call))


def retry_task(task: TaskView, note: str | None) -> RunAction:
    """Retry a blocked task: its verification-failed gates are approved, it works again."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.effects.task_retry import retry

        change = retry(ws, task.id, note=note or "retry")
        return f"task {task.id} is {change.task.state}"

    return RunAction(Action(f"retry task {task.id}", call))


def verify_task(task: TaskView, reason: str | None) -> RunAction:
    """Run the task's guardian (in a child process, on the action thread) and apply its verdict."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.guardians.verification import verify

        done = verify(ws, task.id, reason=reason or "asked in teamdeck")
        gate = f"; gate {done.gate_id} waits" if done.gate_id else ""
        return f"task {task.id}: {done.verdict.guardian} said {done.verdict.status}; it is {done.task.state}{gate}"

    return RunAction(Action(f"verify task {task.id}", call))


def run_plan(plan: PlanView, members: list[str]) -> RunAction:
    """``teamdeck plan run``: move the plan as far as it can go now."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.plans.machine import advance

        result = advance(ws, plan.id, members=members)
        waits = f"; waits for: {'; '.join(result.waiting)}" if result.waiting else ""
        return f"plan {plan.id} is {result.plan.state} ({len(result.moves)} move(s), {len(result.actions)} action(s)){waits}"

    return RunAction(Action(f"run plan {plan.id}", call))
