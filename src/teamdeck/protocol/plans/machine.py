"""The plan's state machine (seed 002) and the supervisor that drives it.

::

    PLANNING ──approve gate──▶ READY ──plan run──▶ EXECUTING ──wave's work reported──▶ WAVE_COMPLETE
        │                                            ▲    │                                 │
        └─reject─▶ CANCELED                          │    └─a task failed─▶ FAILED         ▼
                                       fixes under way│                              VERIFYING
                                                     NEEDS_FIX ◀──a verdict not PASS───┤
                                                                                       ├─every task PASS, more waves─▶ EXECUTING (next wave)
                                                                                       └─every task PASS, last wave─▶ COMPLETED

:func:`advance` is ``teamdeck plan run``: it looks at the plan's tasks and moves the
plan one step at a time as far as it can, doing what each state asks on the way
(starting and delegating the wave's tasks, joining their outputs so a worker that wrote
``blocked`` gets its gate, verifying the tasks with their guardians, marking passed
tasks done). Each state's work is idempotent, so running it again (or after a crash)
is safe; it stops where it must wait, saying for what.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from teamdeck.clock import iso, parse_iso
from teamdeck.errors import Refused, TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.plan import Plan, PlanState
from teamdeck.model.task import Task
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.guardians.process import Isolation
from teamdeck.protocol.task.lifecycle import START, TERMINAL, cancel, transition, unfinished_dependencies
from teamdeck.protocol.task.planfile import change_plan, load_plan
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.protocol.task.worker_outputs import WorkerResult, read_worker_outputs
from teamdeck.store.workspace import Workspace

PLAN_TRANSITIONS: dict[PlanState, frozenset[PlanState]] = {
    "PLANNING": frozenset({"READY", "CANCELED"}),
    "READY": frozenset({"EXECUTING", "CANCELED"}),
    "EXECUTING": frozenset({"WAVE_COMPLETE", "FAILED", "CANCELED"}),
    "WAVE_COMPLETE": frozenset({"VERIFYING", "FAILED", "CANCELED"}),
    "VERIFYING": frozenset({"NEEDS_FIX", "EXECUTING", "COMPLETED", "FAILED", "CANCELED"}),
    "NEEDS_FIX": frozenset({"EXECUTING", "FAILED", "CANCELED"}),
    "COMPLETED": frozenset(),
    "CANCELED": frozenset(),
    "FAILED": frozenset(),
}
"""Legal plan moves; COMPLETED, CANCELED and FAILED are final."""

PLAN_FINAL: frozenset[PlanState] = frozenset(state for state, nexts in PLAN_TRANSITIONS.items() if not nexts)
_MAX_STEPS = 50
_UNDER_REVIEW = ("verifying", "guard-review")


def can_run_plan(state: str) -> bool:
    """Whether ``plan run`` can move a plan in ``state`` (it is not final)."""
    return state not in PLAN_FINAL


@dataclass
class Advance:
    """What :func:`advance` did.

    Attributes:
        plan: the plan afterwards.
        moves: the plan's state changes, in order (``EXECUTING -> WAVE_COMPLETE: ...``).
        actions: what was done to tasks on the way (started, delegated, verified...).
        waiting: why it stopped (what or whom the plan waits for); empty when final.
        events: the plan events appended.
    """

    plan: Plan
    moves: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


@dataclass(frozen=True)
class _Step:
    target: PlanState
    reason: str
    wave: int | None = None


@dataclass
class _Driver:
    ws: Workspace
    start: bool
    members: list[str]
    verify: bool
    isolation: Isolation
    result: Advance

    def task(self, task_id: str) -> Task:
        return load_task(self.ws, task_id)

    def wave(self, plan: Plan) -> list[Task]:
        return [self.task(entry.id) for entry in plan.wave_tasks(plan.currentWave)]


def plan_transition_event(
    ws: Workspace, plan: Plan, target: PlanState, *, reason: str, wave: int | None = None
) -> Event:
    """The ``plan.state_changed`` event moving ``plan`` to ``target``.

    Raises:
        Refused: the plan table does not allow it (naming both states and the legal ones).
    """
    if target not in PLAN_TRANSITIONS[plan.state]:
        nexts = ", ".join(sorted(PLAN_TRANSITIONS[plan.state])) or "none: it is final"
        raise Refused(
            f"Plan {plan.id} cannot go from {plan.state} to {target}; from {plan.state} it can go to: {nexts}"
        )
    payload: dict[str, Any] = {"from": plan.state, "to": target, "reason": reason}
    if wave is not None:
        payload["wave"] = wave
    return new_event(ws, "plan.state_changed", payload)


def advance(
    ws: Workspace,
    plan_id: str,
    *,
    start: bool = True,
    members: list[str] | None = None,
    verify: bool = True,
    isolation: Isolation = "process",
) -> Advance:
    """Drive the plan as far as it can go now (``teamdeck plan run``).

    Args:
        ws: the workspace.
        plan_id: the plan.
        start: a READY plan starts executing (False: only catch up with decisions).
        members: team members to delegate the current wave's undelegated tasks to, in
            turn (none: the tasks are started without delegation).
        verify: a complete wave is verified (False: stop at WAVE_COMPLETE).
        isolation: how guardians run (see protocol/guardians/process.py).

    Returns:
        What moved, what was done, and what the plan now waits for.

    Raises:
        NotFound, ReadOnly, Busy, WriteFailed, InvalidFile: see transact; the moves made
            before the error are on disk.
    """
    driver = _Driver(ws, start, list(members or []), verify, isolation, Advance(load_plan(ws, plan_id)))
    for _ in range(_MAX_STEPS):
        plan = load_plan(ws, plan_id)
        step = _HANDLERS[plan.state](driver, plan)
        if step is None:
            driver.result.plan = plan
            break
        change = change_plan(
            ws, plan_id, lambda current: _move(ws, current, plan, step), action=f"advance plan {plan_id}"
        )
        driver.result.events.extend(change.events)
        driver.result.moves.append(f"{plan.state} -> {step.target}: {step.reason}")
    return driver.result


def _move(ws: Workspace, current: Plan, seen: Plan, step: _Step) -> list[Event]:
    if current.state != seen.state or current.currentWave != seen.currentWave:
        return []  # another supervisor moved it meanwhile; the next round looks again
    return [plan_transition_event(ws, current, step.target, reason=step.reason, wave=step.wave)]


# --- one handler per state: do the state's work, then say where to go (or None: wait) ---
def _planning(driver: _Driver, plan: Plan) -> _Step | None:
    coordinator = driver.task(plan.coordinator)
    if coordinator.state == "canceled":
        return _Step("CANCELED", "the plan was rejected at its approval gate")
    if coordinator.state != "planned":
        return _Step("READY", "approved at the approval gate")
    driver.result.waiting.append(
        f"approval: gate plan-approval on task {plan.coordinator} (teamdeck gate approve {plan.coordinator} plan-approval)"
    )
    return None


def _ready(driver: _Driver, plan: Plan) -> _Step | None:
    _approve_tasks(driver, plan)
    if not driver.start:
        driver.result.waiting.append(f"a start: teamdeck plan run {plan.id}")
        return None
    return _Step("EXECUTING", "wave 1 started", wave=1)


def _executing(driver: _Driver, plan: Plan) -> _Step | None:
    _approve_tasks(driver, plan)
    _ensure_running(driver, plan.coordinator, "the plan is executing")
    for index, task in enumerate(driver.wave(plan)):
        if task.state == START[0]:
            _start_task(driver, task, index)
        elif task.state == "working":
            _join_blocked(driver, task)
    tasks = driver.wave(plan)
    ended = [f"{task.id} ({task.state})" for task in tasks if task.state in ("failed", "canceled")]
    if ended:
        return _Step("FAILED", f"task(s) of wave {plan.currentWave} ended without being done: {', '.join(ended)}")
    unfinished = [reason for task in tasks if (reason := work_missing(driver.ws, task))]
    if unfinished:
        driver.result.waiting += unfinished
        return None
    return _Step("WAVE_COMPLETE", f"every task of wave {plan.currentWave} reported its work")


def _wave_complete(driver: _Driver, plan: Plan) -> _Step | None:
    if not driver.verify:
        driver.result.waiting.append(f"verification of wave {plan.currentWave}: teamdeck plan run {plan.id}")
        return None
    return _Step("VERIFYING", f"verifying wave {plan.currentWave}")


def _verifying(driver: _Driver, plan: Plan) -> _Step | None:
    from teamdeck.protocol.guardians.verification import verify

    for task in driver.wave(plan):
        if task.state == "verified":
            transition(driver.ws, task.id, "done", reason=f"plan {plan.id}: verified in wave {plan.currentWave}")
            driver.result.actions.append(f"{task.id}: done")
        elif task.state == "working" or task.state in _UNDER_REVIEW:
            run = verify(
                driver.ws,
                task.id,
                reason=f"plan {plan.id}, wave {plan.currentWave}",
                complete=True,
                isolation=driver.isolation,
            )
            driver.result.actions.append(
                f"{task.id}: {run.verdict.guardian} {run.verdict.status} ({run.verdict.id}) -> {run.task.state}"
            )
    tasks = driver.wave(plan)
    ended = [f"{task.id} ({task.state})" for task in tasks if task.state in ("failed", "canceled")]
    if ended:
        return _Step("FAILED", f"task(s) of wave {plan.currentWave} ended without being done: {', '.join(ended)}")
    open_ = [f"{task.id} ({task.state})" for task in tasks if task.state != "done"]
    if open_:
        return _Step("NEEDS_FIX", f"wave {plan.currentWave} did not pass: {', '.join(open_)}")
    if plan.currentWave < plan.waves:
        return _Step(
            "EXECUTING",
            f"wave {plan.currentWave} verified; wave {plan.currentWave + 1} started",
            wave=plan.currentWave + 1,
        )
    return _Step("COMPLETED", f"every wave verified ({len(plan.tasks)} tasks done)")


def _needs_fix(driver: _Driver, plan: Plan) -> _Step | None:
    tasks = driver.wave(plan)
    ended = [f"{task.id} ({task.state})" for task in tasks if task.state in ("failed", "canceled")]
    if ended:
        return _Step("FAILED", f"gave up on {', '.join(ended)}")
    waiting = [task for task in tasks if task.state not in ("working", "done")]
    if waiting:
        for task in waiting:
            gates = ", ".join(gate.id for gate in task.open_gates)
            driver.result.waiting.append(
                f"{task.id} is {task.state}"
                + (f": gate(s) {gates} wait for a person (approve = retry, reject = give up)" if gates else "")
            )
        return None
    fixing = [task.id for task in tasks if task.state == "working"]
    return _Step("EXECUTING", f"fixes under way on {', '.join(fixing)}", wave=plan.currentWave)


def _completed(driver: _Driver, plan: Plan) -> None:
    """The coordinator's own task is verified by the ``plan`` guardian and done."""
    from teamdeck.protocol.guardians.verification import verify

    coordinator = driver.task(plan.coordinator)
    _ensure_running(driver, plan.coordinator, "the plan is executing")
    coordinator = driver.task(plan.coordinator)
    if coordinator.state in ("working", *_UNDER_REVIEW):
        run = verify(
            driver.ws,
            plan.coordinator,
            guardian="plan",
            reason=f"plan {plan.id} completed",
            complete=True,
            isolation=driver.isolation,
        )
        driver.result.actions.append(f"{plan.coordinator}: plan {run.verdict.status} -> {run.task.state}")
    return None


def _ended(driver: _Driver, plan: Plan) -> None:
    """CANCELED / FAILED: nothing of the plan stays open."""
    why = f"plan {plan.id} {plan.state.lower()}"
    for task_id in [*(entry.id for entry in plan.tasks), plan.coordinator]:
        try:
            task = driver.task(task_id)
        except TeamdeckError:
            continue
        if task.state not in TERMINAL:
            cancel(driver.ws, task.id, reason=why)
            driver.result.actions.append(f"{task.id}: canceled")
    return None


_HANDLERS = {
    "PLANNING": _planning,
    "READY": _ready,
    "EXECUTING": _executing,
    "WAVE_COMPLETE": _wave_complete,
    "VERIFYING": _verifying,
    "NEEDS_FIX": _needs_fix,
    "COMPLETED": _completed,
    "CANCELED": _ended,
    "FAILED": _ended,
}


# --- helpers -------------------------------------------------------------------------
def _approve_tasks(driver: _Driver, plan: Plan) -> None:
    """The plan was approved, so each of its tasks is (planned → approved)."""
    for entry in plan.tasks:
        if driver.task(entry.id).state == "planned":
            transition(driver.ws, entry.id, "approved", reason=f"plan {plan.id} approved")
            driver.result.actions.append(f"{entry.id}: approved")


def _ensure_running(driver: _Driver, task_id: str, reason: str) -> None:
    task = driver.task(task_id)
    if task.state == "approved":
        transition(driver.ws, task_id, "working", reason=reason)


def _join_blocked(driver: _Driver, task: Task) -> None:
    """A worker that wrote ``blocked`` by hand gets its gate now (the join is idempotent)."""
    from teamdeck.protocol.task.join import join_task

    if any(result.status == "blocked" for result in read_worker_outputs(driver.ws, task.id)):
        joined = join_task(driver.ws, task.id)
        for gate_id in joined.gates_opened:
            driver.result.actions.append(f"{task.id}: gate {gate_id} opened for a blocked worker")


def _start_task(driver: _Driver, task: Task, index: int) -> None:
    from teamdeck.protocol.coordination.delegation import delegate

    if unfinished_dependencies(driver.ws, task):
        return  # cannot happen for a wave whose earlier waves are done; the check stays
    if driver.members and not task.workers:
        member = driver.members[index % len(driver.members)]
        done = delegate(driver.ws, task.id, member)
        driver.result.actions.append(f"{task.id}: delegated to {done.worker.member}")
    else:
        transition(driver.ws, task.id, "working", reason="its wave started")
        driver.result.actions.append(f"{task.id}: started")


def work_finished_at(ws: Workspace, task_id: str, result: WorkerResult) -> str | None:
    """When a worker's output was written: its ``finishedAt``, else the file's mtime."""
    if result.output is not None and result.output.finishedAt:
        return result.output.finishedAt
    try:
        from datetime import UTC, datetime

        return iso(datetime.fromtimestamp(ws.final_output(task_id, result.agent_id).stat().st_mtime, UTC))
    except (OSError, TeamdeckError):
        return None


def work_missing(ws: Workspace, task: Task) -> str | None:
    """Why ``task``'s work is not finished (None: it is, or it is past working).

    Finished: at least one worker reported, every delegated worker reported, no report
    says blocked, and every report is newer than the task's last verdict (after a
    NEEDS_CHANGES or a retry, the workers must report again; a report stamped the very
    moment of the verdict was read by it, so it is not newer).
    """
    if task.state in ("done", "verified", *_UNDER_REVIEW):
        return None
    if task.state != "working":
        gates = ", ".join(gate.id for gate in task.open_gates)
        return f"{task.id} is {task.state}" + (f": gate(s) {gates} wait for a person" if gates else "")
    results = {result.agent_id: result for result in read_worker_outputs(ws, task.id) if not result.ignored}
    since = task.verification.appliedAt if task.verification and task.verification.appliedAt else None
    missing = []
    for agent in sorted({*results, *(worker.id for worker in task.workers)}):
        result = results.get(agent)
        if result is None or result.status == "pending":
            missing.append(f"{agent} has not reported")
        elif result.status == "blocked":
            missing.append(f"{agent} is blocked")
        elif since is not None and (
            (at := work_finished_at(ws, task.id, result)) is None or parse_iso(at) <= parse_iso(since)
        ):
            missing.append(f"{agent} has not reported since the last verdict")
    if not results and not task.workers:
        missing.append("no worker has reported")
    return f"{task.id}: " + "; ".join(missing) if missing else None


def cancel_plan(ws: Workspace, plan_id: str, *, reason: str = "") -> Advance:
    """Cancel a plan that is not final, and every task of it that is not final.

    Raises:
        Refused: the plan is already final.
    """
    change = change_plan(
        ws,
        plan_id,
        lambda plan: [plan_transition_event(ws, plan, "CANCELED", reason=reason or "canceled by a person")],
        action=f"cancel plan {plan_id}",
    )
    result = advance(ws, plan_id, start=False, verify=False)
    result.events[:0] = change.events
    result.moves.insert(0, f"-> CANCELED: {reason or 'canceled by a person'}")
    return result
