"""``plans/<plan-id>/plan.yaml``: a coordinator plan (seed 002), folded from its events.jsonl.

A plan groups tasks made from a coordinator's ``@@@task`` blocks into waves (a task's
wave is one more than its deepest dependency's) and walks them through its own state
machine (protocol/plans/machine.py). The tasks themselves are ordinary tasks under
``tasks/`` (with ``plan``, ``wave`` and ``dependsOn``); the plan's approval gate lives
on its coordinator task ``tasks/<plan-id>/``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from teamdeck.model.base import Id, OurModel, Timestamp

PlanState = Literal[
    "PLANNING", "READY", "EXECUTING", "WAVE_COMPLETE", "VERIFYING", "NEEDS_FIX", "COMPLETED", "CANCELED", "FAILED"
]
"""Seed 002's states plus two endings: CANCELED (the plan was rejected or canceled) and
FAILED (one of its tasks failed or was canceled)."""


class PlanTask(OurModel):
    """One ``@@@task`` block of the plan, as imported."""

    id: Id = Field(description="the task's id under tasks/")
    title: str
    wave: int = Field(ge=1)
    dependsOn: list[Id] = Field(default_factory=list)
    line: int = Field(ge=1, description="the line of its @@@task in the imported file")


class Plan(OurModel):
    """The content of plan.yaml."""

    id: Id
    title: str
    state: PlanState
    team: str | None = None
    coordinator: Id = Field(description="the coordinator task (holds the plan-approval gate)")
    source: str = Field(description="the file the plan was imported from")
    sourceDigest: str = Field(
        description="sha256 of the imported file, so importing it again resumes instead of duplicating"
    )
    tasks: list[PlanTask]
    waves: int = Field(ge=1)
    currentWave: int = Field(default=0, ge=0, description="the wave being executed or verified (0: not started)")
    createdAt: Timestamp
    updatedAt: Timestamp
    revision: int = Field(ge=0)
    lastEventId: str | None = None
    stateSince: Timestamp | None = None

    def wave_tasks(self, wave: int) -> list[PlanTask]:
        """The tasks of ``wave``, in plan order."""
        return [task for task in self.tasks if task.wave == wave]
