"""``tasks/<task-id>/task.yaml``: a task, its workers and its gates.

task.yaml is the folded state of the task's ``events.jsonl`` (see protocol/replay.py):
``lastEventId`` names the last event applied, so a crash between appending an event
and replacing task.yaml is repaired on the next command (F12).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from teamdeck.model.base import Id, OurModel, Timestamp

TaskState = Literal[
    "planned",
    "approved",
    "working",
    "input-required",
    "verifying",
    "guard-review",
    "verified",
    "done",
    "failed",
    "canceled",
]
"""Every task state; docs/protocol.md has the one transition table."""

GateState = Literal["blocked", "approved", "rejected"]

GateKind = Literal["worker-blocked", "verification-failed", "plan-approval"]
"""Why a person is asked: a worker blocked (spec 000), a guardian said FAIL (seed 003),
a coordinator plan waits for approval (seed 002)."""


class Gate(OurModel):
    """A point where a human must decide."""

    id: Id
    kind: GateKind = "worker-blocked"
    state: GateState
    reason: str = ""
    agentInstance: str | None = None
    questions: list[str] = Field(default_factory=list)
    instructionsRef: str = "./shared/human-notes.md"
    createdAt: Timestamp
    decidedBy: str | None = None
    decidedAt: Timestamp | None = None
    note: str | None = None


class Worker(OurModel):
    """An agent working on the task (its outputs live under ``agents/<id>/``)."""

    id: Id
    member: str | None = None
    role: str | None = None
    assignedAt: Timestamp | None = None


class Task(OurModel):
    """The content of task.yaml."""

    id: Id
    title: str
    state: TaskState
    gates: list[Gate] = Field(default_factory=list)
    createdAt: Timestamp
    updatedAt: Timestamp
    revision: int = Field(ge=0)
    team: str | None = None
    creator: str | None = None
    workers: list[Worker] = Field(default_factory=list)
    lastEventId: str | None = None

    def gate(self, gate_id: str) -> Gate | None:
        """The gate with ``gate_id``, if any."""
        return next((gate for gate in self.gates if gate.id == gate_id), None)

    @property
    def open_gates(self) -> list[Gate]:
        """Gates still waiting for a person, oldest first."""
        return sorted((gate for gate in self.gates if gate.state == "blocked"), key=lambda gate: gate.createdAt)
