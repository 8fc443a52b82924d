"""Read functions for fronts (CLI, TUI): a plan's state, its waves, what blocks what.

Nothing here writes. :func:`plan_overview` is what a plan view renders: the waves as
groups of rows, each task's state, the tasks it still waits for, its open gates and
its last verdict, plus the one thing the plan needs next: who moves it on is the
automatic step (``teamdeck run``, ``teamdeck supervise``) unless ``autowork.enabled`` is
off, when only ``teamdeck plan run`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from teamdeck.errors import TeamdeckError
from teamdeck.model.plan import Plan
from teamdeck.model.task import Gate
from teamdeck.protocol.task.planfile import load_plan
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.store.settings import load_settings
from teamdeck.store.workspace import Workspace


@dataclass(frozen=True)
class PlanTaskRow:
    """One task of a plan as a view shows it (immutable: the read model keeps it as is).

    Attributes:
        id, title, wave: from the plan.
        state: the task's state (``unreadable`` when task.yaml cannot be read).
        depends_on: the tasks it depends on.
        waiting_on: those of them that are not done yet (what blocks it).
        gates: its gates waiting for a person, as ``(gate id, gate kind)``.
        verdict: the status of its last guardian verdict (None: never verified).
        workers: ``member (role)`` of each delegated worker.
        problem: why the task could not be read.
    """

    id: str
    title: str
    wave: int
    state: str
    depends_on: tuple[str, ...] = ()
    waiting_on: tuple[str, ...] = ()
    gates: tuple[tuple[str, str], ...] = ()
    verdict: str | None = None
    workers: tuple[str, ...] = ()
    problem: str | None = None


@dataclass(frozen=True)
class PlanOverview:
    """A plan with its tasks grouped by wave.

    Attributes:
        plan: the plan document.
        waves: ``waves[0]`` is wave 1's rows, in plan order.
        coordinator_state: the coordinator task's state.
        approval: the plan-approval gate (None if the coordinator cannot be read).
        next_step: what the plan needs now, in words.
    """

    plan: Plan
    waves: list[list[PlanTaskRow]] = field(default_factory=list)
    coordinator_state: str = "unreadable"
    approval: Gate | None = None
    next_step: str = ""

    def row(self, task_id: str) -> PlanTaskRow | None:
        """The row of ``task_id``."""
        return next((row for wave in self.waves for row in wave if row.id == task_id), None)


def plan_overview(ws: Workspace, plan_id: str) -> PlanOverview:
    """The plan, its waves and what each task waits for.

    Raises:
        NotFound, InvalidFile: the plan itself cannot be read (a task that cannot be
            read is a row with ``problem`` instead).
    """
    plan = load_plan(ws, plan_id)
    states: dict[str, str] = {}
    rows: dict[str, PlanTaskRow] = {}
    for entry in plan.tasks:
        try:
            task = load_task(ws, entry.id)
        except TeamdeckError as err:
            rows[entry.id] = PlanTaskRow(
                entry.id, entry.title, entry.wave, "unreadable", tuple(entry.dependsOn), problem=str(err)
            )
            states[entry.id] = "unreadable"
            continue
        states[entry.id] = task.state
        rows[entry.id] = PlanTaskRow(
            entry.id,
            entry.title,
            entry.wave,
            task.state,
            tuple(entry.dependsOn),
            gates=tuple((gate.id, gate.kind) for gate in task.open_gates),
            verdict=task.verification.status if task.verification else None,
            workers=tuple(f"{worker.member or worker.id} ({worker.role or 'worker'})" for worker in task.workers),
        )
    for task_id, row in rows.items():
        waiting = tuple(dependency for dependency in row.depends_on if states.get(dependency) != "done")
        rows[task_id] = PlanTaskRow(**{**row.__dict__, "waiting_on": waiting})
    waves = [[rows[entry.id] for entry in plan.wave_tasks(wave)] for wave in range(1, plan.waves + 1)]
    coordinator_state: str
    try:
        coordinator = load_task(ws, plan.coordinator)
        coordinator_state, approval = coordinator.state, coordinator.gate("plan-approval")
    except TeamdeckError:
        coordinator_state, approval = "unreadable", None
    next_step = _next_step(plan, coordinator_state, waves, autowork_on(ws))
    return PlanOverview(plan, waves, coordinator_state, approval, next_step)


def _next_step(plan: Plan, coordinator_state: str, waves: list[list[PlanTaskRow]], autowork: bool) -> str:
    by_hand = f"teamdeck plan run {plan.id}"
    then = f"teamdeck run or supervise moves it on (by hand: {by_hand})" if autowork else f"{by_hand} (autowork is off)"
    if plan.state == "PLANNING":
        if coordinator_state == "planned":
            return f"a person approves or rejects gate plan-approval of task {plan.coordinator}"
        return f"the approval was decided; {then}"
    if plan.state == "READY":
        if autowork:
            return f"teamdeck run or supervise starts it (by hand: {by_hand} [--to MEMBER ...])"
        return f"start it: {by_hand} [--to MEMBER ...] (autowork is off)"
    if plan.state in ("COMPLETED", "CANCELED", "FAILED"):
        return "nothing: the plan is final"
    rows = waves[plan.currentWave - 1] if 0 < plan.currentWave <= len(waves) else []
    gated = [row.id for row in rows if row.gates]
    if gated:
        return f"a person decides the gates of {', '.join(gated)}; then {then}"
    if plan.state in ("WAVE_COMPLETE", "VERIFYING"):
        if autowork:
            return f"teamdeck run or supervise verifies wave {plan.currentWave} (by hand: {by_hand})"
        return f"verify wave {plan.currentWave}: {by_hand} (autowork is off)"
    return f"the workers of wave {plan.currentWave} report; then {then}"


def autowork_on(ws: Workspace) -> bool:
    """Whether the automatic step moves plans in this workspace (``autowork.enabled``;
    settings that cannot be read stop it too: the step says so and does nothing)."""
    try:
        return load_settings(ws.root).autowork.enabled
    except TeamdeckError:
        return False
