"""Plans and verdict histories as the snapshot holds them: a :class:`PlanView` is a
coordinator plan's state, its waves with each task's state and what blocks it, and the
next step; a :class:`TaskVerdicts` is a task's verdict history (both read by
view/readers/plans.py). Text is kept raw, as in the rest of the snapshot: fronts
sanitise it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from teamdeck.protocol.plans.overview import PlanTaskRow


@dataclass(frozen=True)
class PlanView:
    """A coordinator plan (``plans/<id>/plan.yaml``) with its tasks by wave.

    Attributes:
        id, title, state, team, coordinator: from plan.yaml.
        current_wave: the wave executed or verified now (0: not started).
        waves: ``waves[0]`` is wave 1's tasks, in plan order.
        coordinator_state: the coordinator task's state.
        approval: the plan-approval gate's state (``blocked`` while it waits), or None.
        next_step: what the plan needs now, in words.
        problem: plan.yaml could not be read (the other fields are the last good ones,
            or empty).
    """

    id: str
    title: str = ""
    state: str = "?"
    team: str | None = None
    coordinator: str = ""
    current_wave: int = 0
    waves: tuple[tuple[PlanTaskRow, ...], ...] = ()
    coordinator_state: str = ""
    approval: str | None = None
    next_step: str = ""
    problem: str | None = None

    @property
    def tasks(self) -> tuple[PlanTaskRow, ...]:
        return tuple(task for wave in self.waves for task in wave)

    @property
    def task_ids(self) -> frozenset[str]:
        """Every task whose state this view shows (the coordinator too)."""
        return frozenset({*(task.id for task in self.tasks), self.coordinator} - {""})

    def done(self) -> int:
        """How many of its tasks are done."""
        return sum(task.state == "done" for task in self.tasks)


@dataclass(frozen=True)
class FlagView:
    """One finding of a verdict."""

    code: str
    severity: str
    message: str
    path: str | None = None


@dataclass(frozen=True)
class VerdictView:
    """One GuardianVerdictSnapshot (``tasks/<id>/guardian/verdicts/<gv-id>.json``).

    Attributes:
        id, assignment, guardian, status: from the record.
        flags: its findings.
        evidence: ``(key, value)`` pairs; a value that is not a string is compact JSON.
        recommendations: what to change.
        created_at: when the guardian concluded (ISO-8601).
        duration_s: how long it ran.
    """

    id: str
    assignment: str
    guardian: str
    status: str
    flags: tuple[FlagView, ...] = ()
    evidence: tuple[tuple[str, str], ...] = ()
    recommendations: tuple[str, ...] = ()
    created_at: str = ""
    duration_s: float = 0.0


@dataclass(frozen=True)
class TaskVerdicts:
    """A task's verdict history, oldest first, and the records that could not be read."""

    task_id: str
    verdicts: tuple[VerdictView, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def last(self) -> VerdictView | None:
        return self.verdicts[-1] if self.verdicts else None
