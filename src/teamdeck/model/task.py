"""``tasks/<task-id>/task.yaml``: a task, its workers and its gates.

task.yaml is the folded state of the task's ``events.jsonl`` (see protocol/task/replay.py):
``lastEventId`` names the last event applied, so a crash between appending an event
and replacing task.yaml is repaired on the next command (F12).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from teamdeck.model.base import Id, OurModel, Timestamp
from teamdeck.model.guardian import VerdictStatus

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
GateAnswer = Literal["approve", "reject"]
"""What a person answers to a blocked gate (it becomes ``approved`` / ``rejected``)."""

GateKind = Literal["worker-blocked", "verification-failed", "plan-approval", "round-review", "member-stalled"]
"""Why a person is asked: a worker blocked (spec 000), a guardian said FAIL (seed 003),
a coordinator plan waits for approval (seed 002), every sub issue of a parent issue is
final (seed 001's round review), a member left its work untouched through its nudges
(protocol/autowork/stalls.py)."""


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
    outputDigest: str | None = Field(
        default=None,
        description="sha256 of the final.json that raised a worker-blocked gate: "
        "a join opens a new gate for the worker only when it changes",
    )


WorkerRole = Literal["coordinator", "implementor", "verifier"]
"""Seed 002's roles: the coordinator plans and delegates, implementors do the work,
verifiers check it."""


class Worker(OurModel):
    """An agent working on the task (its outputs live under ``agents/<id>/``)."""

    id: Id
    member: str | None = None
    role: str | None = None
    assignedAt: Timestamp | None = None
    assignedBy: str | None = Field(
        default=None, description="who delegated the task (notified when the worker reports)"
    )


class CommandCheck(OurModel):
    """The command the ``command`` guardian runs (no shell: ``run`` is split like a shell would)."""

    run: list[str] | str
    cwd: str = Field(default=".", description="directory to run in; relative paths start at the workspace root")
    timeoutS: float = Field(default=300.0, gt=0)
    needsChangesExit: int | None = Field(
        default=None,
        description="an exit code that means the work needs changes (NEEDS_CHANGES: the output tail goes to the "
        "workers) rather than FAIL (a linter that found something to fix)",
    )


class GuardianConfig(OurModel):
    """How ``teamdeck verify`` checks this task when no guardian is named."""

    code: str = Field(default="schema", description="the guardian to run")
    timeoutS: float = Field(
        default=120.0, gt=0, description="a guardian running longer is stopped and the verdict is FAIL"
    )
    command: CommandCheck | None = None
    onReview: bool = Field(
        default=False,
        description="verify the task as soon as every worker reported (teamdeck supervise / the runner), "
        "without a teamdeck verify",
    )
    retries: int = Field(
        default=0,
        ge=0,
        le=20,
        description="a FAIL verdict is retried automatically this many times (the task goes back to its workers) "
        "before its gate waits for a person (seed 003)",
    )


class Verification(OurModel):
    """The task's current (or last) guardian assignment and how far it got (seed 003).

    ``step``: ``assigned`` (task verifying), ``started`` (guard-review, the guardian
    runs), ``recorded`` (its verdict is on disk), ``applied`` (the task moved on).
    ``teamdeck verify`` resumes an assignment that is not applied instead of making a
    new one, so running it again is safe.
    """

    assignment: Id
    guardian: str
    step: Literal["assigned", "started", "recorded", "applied"]
    verdict: Id | None = None
    status: VerdictStatus | None = None
    appliedAt: Timestamp | None = Field(
        default=None, description="when the verdict was applied (work reported later is new)"
    )


class TaskSpec(OurModel):
    """A coordinator plan's ``@@@task`` block sections (seed 002)."""

    objective: str = ""
    scope: str = ""
    definitionOfDone: str = ""
    verification: str = ""


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
    stateSince: Timestamp | None = Field(default=None, description="when the task entered its current state")
    guardian: GuardianConfig | None = None
    verification: Verification | None = None
    plan: Id | None = Field(default=None, description="the coordinator plan this task belongs to")
    wave: int | None = Field(default=None, ge=1, description="the plan wave: 1 + the deepest dependency's wave")
    dependsOn: list[Id] = Field(default_factory=list, description="tasks that must be done before this one starts")
    spec: TaskSpec | None = None

    def gate(self, gate_id: str) -> Gate | None:
        """The gate with ``gate_id``, if any."""
        return next((gate for gate in self.gates if gate.id == gate_id), None)

    @property
    def open_gates(self) -> list[Gate]:
        """Gates still waiting for a person, oldest first."""
        return sorted((gate for gate in self.gates if gate.state == "blocked"), key=lambda gate: gate.createdAt)
