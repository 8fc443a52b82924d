"""Verification when a task reaches review (seed 003).

- A task outside any plan whose guardian is configured ``onReview`` (``teamdeck
  guardian set T --on-review``) is verified as soon as it is ``working`` and every
  worker reported (a report newer than its last verdict): PASS makes it done,
  NEEDS_CHANGES sends the recommendations to its workers (and so wakes them), FAIL opens
  its ``verification-failed`` gate. A plan's tasks are verified by their plan, wave by
  wave (protocol/autowork/plans.py).
- Retry policy: a task whose guardian has ``retries: N`` gets its FAIL gate approved by
  itself (the task goes back to its workers, who are told) up to N times; the next FAIL
  waits for a person, as it always did.
"""

from __future__ import annotations

from teamdeck.errors import TeamdeckError
from teamdeck.model.task import Task
from teamdeck.protocol.autowork.steps import ACTOR, AutoStep
from teamdeck.protocol.guardians.process import Isolation
from teamdeck.protocol.plans.machine import work_missing
from teamdeck.store.workspace import Workspace

FAIL_GATE = "verification-failed"


def review_reported(
    ws: Workspace, tasks: list[Task], isolation: Isolation, steps: list[AutoStep], problems: list[str]
) -> None:
    """Verify every ``onReview`` task whose workers all reported; retry FAILs with retries left."""
    from teamdeck.protocol.guardians.verification import verify

    for task in tasks:
        if task.guardian is None:
            continue
        try:
            if task.guardian.retries and _retry_failed(ws, task, steps):
                continue
            if task.plan is not None or not task.guardian.onReview:
                continue
            if task.state not in ("working", "verifying", "guard-review") or (
                task.state == "working" and (work_missing(ws, task) is not None or not task.workers)
            ):
                continue
            cause = "every worker reported" if task.state == "working" else "its verification was interrupted"
            run = verify(ws, task.id, reason=f"automatic: {cause}", complete=True, isolation=isolation)
            verdict = run.verdict
            steps.append(
                AutoStep(
                    "verify",
                    task.id,
                    cause,
                    f"guardian {verdict.guardian}: {verdict.status} ({verdict.id}) -> {run.task.state}",
                )
            )
        except TeamdeckError as err:
            problems.append(f"verification of task {task.id}: {err}")


def automatic_retries(task: Task) -> int:
    """How many FAIL gates of ``task`` were approved by the retry policy (not a person)."""
    return sum(1 for gate in task.gates if gate.kind == FAIL_GATE and gate.decidedBy == ACTOR)


def _retry_failed(ws: Workspace, task: Task, steps: list[AutoStep]) -> bool:
    """Approve the task's open FAIL gate when the retry policy has retries left."""
    from teamdeck.protocol.effects.gate_decisions import decide_gate

    assert task.guardian is not None
    gate = next((gate for gate in task.open_gates if gate.kind == FAIL_GATE), None)
    if gate is None:
        return False
    used = automatic_retries(task)
    if used >= task.guardian.retries:
        return False
    note = f"automatic retry {used + 1} of {task.guardian.retries} (retry policy)"
    decide_gate(ws, task.id, gate.id, "approve", note)
    steps.append(AutoStep("retry", task.id, f"FAIL gate {gate.id}: {gate.reason}", note))
    return True
