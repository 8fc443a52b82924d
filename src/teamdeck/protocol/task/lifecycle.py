"""The task lifecycle: one transition table and one transition function for every front.

Seed 003's states and spec 000's are one machine: seed 003's RUNNING *is* spec 000's
``working``, and seed 003's BLOCKED *is* ``input-required`` (a task is blocked exactly
when a gate waits for a person). docs/protocol.md carries the same table.

Every change of state goes through :func:`transition` (or an event made by
:func:`transition_event` inside another transaction), so the table is checked in one
place, and every change is one ``task.state_changed`` event appended before task.yaml
is replaced.
"""

from __future__ import annotations

from typing import get_args

from teamdeck.errors import NotFound, Refused
from teamdeck.model.event import Event
from teamdeck.model.task import Task, TaskState
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.task.taskfile import TaskChange, load_task, transact
from teamdeck.store.workspace import Workspace

STATES: tuple[TaskState, ...] = get_args(TaskState)

TRANSITIONS: dict[TaskState, frozenset[TaskState]] = {
    "planned": frozenset({"approved", "canceled"}),
    "approved": frozenset({"working", "canceled"}),
    "working": frozenset({"verifying", "input-required", "failed", "canceled"}),
    "input-required": frozenset({"working", "failed", "canceled"}),
    "verifying": frozenset({"guard-review", "input-required", "canceled"}),
    "guard-review": frozenset({"verified", "working", "input-required", "canceled"}),
    "verified": frozenset({"done", "working", "canceled"}),
    "done": frozenset(),
    "failed": frozenset(),
    "canceled": frozenset(),
}
"""Legal moves: ``TRANSITIONS[from]`` is the set of states reachable in one step.

- ``planned → approved → working``: a planned task starts only once approved (a plan's
  approval gate), and only when every task it depends on is ``done``.
- ``working → verifying → guard-review → verified → done``: seed 003's verification
  loop; ``guard-review → working`` is a NEEDS_CHANGES verdict, ``verified → working``
  reopens a verified task.
- ``input-required`` (seed BLOCKED) from ``working`` (a worker blocked), ``verifying``
  or ``guard-review`` (a guardian FAIL or a person stopping it), and back to ``working``
  (retry, or every gate decided); ``→ failed`` is giving up.
- ``canceled`` from every state that is not final; ``done``, ``failed`` and ``canceled``
  are final.
"""

ALIASES: dict[str, TaskState] = {
    "running": "working",
    "blocked": "input-required",
    "guard_review": "guard-review",
    "cancelled": "canceled",
}
"""Seed 003's names (and a spelling), accepted wherever a person types a state."""

SEED_NAMES: dict[TaskState, str] = {
    "planned": "PLANNED",
    "approved": "APPROVED",
    "working": "RUNNING",
    "input-required": "BLOCKED",
    "verifying": "VERIFYING",
    "guard-review": "GUARD_REVIEW",
    "verified": "VERIFIED",
    "done": "DONE",
}
"""Each state's name in seed 003 (``failed`` and ``canceled`` are teamdeck's)."""

TERMINAL: frozenset[TaskState] = frozenset(state for state, nexts in TRANSITIONS.items() if not nexts)

START: tuple[TaskState, TaskState] = ("approved", "working")
"""The move that starts a task: refused while a task it depends on is not ``done``."""


def normalise_state(name: str) -> TaskState:
    """A state a person typed (seed names and any case accepted).

    Raises:
        Refused: not a state; the message lists the states.
    """
    key = name.strip().lower()
    state = ALIASES.get(key, key)
    if state not in STATES:
        raise Refused(f"Unknown task state '{name}'; states are: {', '.join(STATES)}")
    return state


def can_transition(source: TaskState, target: TaskState) -> bool:
    """Whether the table allows ``source`` → ``target``."""
    return target in TRANSITIONS.get(source, frozenset())


def legal_next(source: TaskState) -> list[TaskState]:
    """The states reachable from ``source``, in table order."""
    return [state for state in STATES if can_transition(source, state)]


def refusal(task: Task, target: TaskState) -> Refused:
    """The error for an illegal move, naming both states and the legal next ones."""
    if task.state == target:
        return Refused(f"Task {task.id} is already {task.state}; nothing was changed")
    nexts = ", ".join(legal_next(task.state)) or "none: it is final"
    return Refused(f"Task {task.id} cannot go from {task.state} to {target}; from {task.state} it can go to: {nexts}")


def transition_event(
    ws: Workspace, task: Task, target: TaskState, *, reason: str = "", actor: str | None = None
) -> Event:
    """The ``task.state_changed`` event that moves ``task`` to ``target``.

    Raises:
        Refused: the move is illegal; names both states and the legal next ones.
    """
    if not can_transition(task.state, target):
        raise refusal(task, target)
    return new_event(ws, "task.state_changed", {"from": task.state, "to": target, "reason": reason}, actor=actor)


def unfinished_dependencies(ws: Workspace, task: Task) -> list[str]:
    """The tasks ``task`` depends on that are not ``done`` yet (``id (state)``; a missing
    one as ``id (missing)``)."""
    waiting = []
    for dependency in task.dependsOn:
        state: str
        try:
            state = load_task(ws, dependency).state
        except NotFound:
            state = "missing"
        if state != "done":
            waiting.append(f"{dependency} ({state})")
    return waiting


def check_can_start(ws: Workspace, task: Task, target: TaskState) -> None:
    """Refuse starting ``task`` while a task it depends on is not done.

    Raises:
        Refused: naming the unfinished dependencies.
    """
    if (task.state, target) == START:
        waiting = unfinished_dependencies(ws, task)
        if waiting:
            raise Refused(f"Task {task.id} cannot start: it depends on tasks that are not done: {', '.join(waiting)}")


def transition(
    ws: Workspace, task_id: str, target: TaskState | str, *, reason: str = "", actor: str | None = None
) -> TaskChange:
    """Move a task to ``target`` (the one transition function of every front).

    Args:
        ws: the workspace.
        task_id: the task.
        target: the new state (seed names such as ``running`` are accepted).
        reason: why, recorded in the event.
        actor: who (defaults to the workspace's actor).

    Returns:
        The task after the move and the ``task.state_changed`` event.

    Raises:
        Refused: unknown state, illegal move (naming both states and the legal next
            ones) or a dependency not done; nothing was written.
        NotFound, ReadOnly, Busy, WriteFailed: see :func:`~teamdeck.protocol.task.taskfile.transact`.
    """
    state = normalise_state(target)

    def decide(task: Task) -> list[Event]:
        event = transition_event(ws, task, state, reason=reason, actor=actor)
        check_can_start(ws, task, state)
        return [event]

    return transact(ws, task_id, decide, action=f"move task {task_id} to {state}")


def close_gates_events(ws: Workspace, task: Task, note: str, *, actor: str | None = None) -> list[Event]:
    """``gate.rejected`` for every open gate of ``task`` (it is ending: no dead gate may
    stay in the queue), each with ``note``."""
    return [
        new_event(
            ws,
            "gate.rejected",
            {"gateId": gate.id, "agentInstance": gate.agentInstance, "by": actor or ws.actor, "note": note},
            actor=actor,
        )
        for gate in task.open_gates
    ]


def cancel_events(ws: Workspace, task: Task, *, reason: str = "", actor: str | None = None) -> list[Event]:
    """The events that cancel ``task``: its open gates closed and ``task.state_changed``
    → ``canceled``.

    Raises:
        Refused: the task is already final.
    """
    event = transition_event(ws, task, "canceled", reason=reason or "canceled", actor=actor)
    note = f"task canceled: {reason}" if reason else "task canceled"
    return [*close_gates_events(ws, task, note, actor=actor), event]


def cancel(ws: Workspace, task_id: str, *, reason: str = "", actor: str | None = None) -> TaskChange:
    """Cancel a task from any state that is not final; its open gates are closed.

    Raises:
        Refused: the task is done, failed or already canceled.
    """
    return transact(
        ws, task_id, lambda task: cancel_events(ws, task, reason=reason, actor=actor), action=f"cancel task {task_id}"
    )
