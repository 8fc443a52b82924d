"""The task lifecycle: one transition table and one transition function for every front.

Seed 003's states and spec 000's are one machine: seed 003's RUNNING *is* spec 000's
``working``, and seed 003's BLOCKED *is* ``input-required`` (a task is blocked exactly
when a gate waits for a person). docs/protocol.md carries the same table.
"""

from __future__ import annotations

from typing import get_args

from teamdeck.errors import Refused
from teamdeck.model.event import Event
from teamdeck.model.task import Task, TaskState
from teamdeck.protocol.events import new_event
from teamdeck.store.workspace import Workspace

STATES: tuple[TaskState, ...] = get_args(TaskState)

TRANSITIONS: dict[TaskState, frozenset[TaskState]] = {
    "planned": frozenset({"approved", "canceled"}),
    "approved": frozenset({"working", "canceled"}),
    "working": frozenset({"verifying", "input-required", "failed", "canceled"}),
    "input-required": frozenset({"working", "failed", "canceled"}),
    "verifying": frozenset({"guard-review", "input-required", "canceled"}),
    "guard-review": frozenset({"verified", "working", "input-required", "canceled"}),
    "verified": frozenset({"done", "working"}),
    "done": frozenset(),
    "failed": frozenset(),
    "canceled": frozenset(),
}
"""Legal moves: ``TRANSITIONS[from]`` is the set of states reachable in one step."""

ALIASES: dict[str, TaskState] = {"running": "working", "blocked": "input-required", "guard_review": "guard-review"}
"""Seed 003's names, accepted wherever a person types a state."""

TERMINAL: frozenset[TaskState] = frozenset(state for state, nexts in TRANSITIONS.items() if not nexts)


def normalise_state(name: str) -> TaskState:
    """A state a person typed (seed names and any case accepted).

    Raises:
        Refused: not a state; the message lists the states.
    """
    key = name.strip().lower()
    state = ALIASES.get(key, key)
    if state not in STATES:
        raise Refused(f"Unknown task state '{name}'; states are: {', '.join(STATES)}")
    return state  # type: ignore[return-value]


def can_transition(source: TaskState, target: TaskState) -> bool:
    """Whether the table allows ``source`` → ``target``."""
    return target in TRANSITIONS.get(source, frozenset())


def legal_next(source: TaskState) -> list[TaskState]:
    """The states reachable from ``source``, in table order."""
    return [state for state in STATES if can_transition(source, state)]


def transition_event(ws: Workspace, task: Task, target: TaskState, *, reason: str = "", actor: str | None = None) -> Event:
    """The ``task.state_changed`` event that moves ``task`` to ``target``.

    Raises:
        Refused: the move is illegal; names both states and the legal next ones.
    """
    if not can_transition(task.state, target):
        nexts = ", ".join(legal_next(task.state)) or "none: it is final"
        raise Refused(f"Task {task.id} cannot go from {task.state} to {target}; from {task.state} it can go to: {nexts}")
    return new_event(ws, "task.state_changed", {"from": task.state, "to": target, "reason": reason}, actor=actor)
