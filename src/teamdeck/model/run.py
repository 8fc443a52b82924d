"""A run of a team member by ``teamdeck run``: ``runs/<team>/<member>/<run_id>/run.yaml``
(the folded state, replaced atomically) beside its append-only ``events.jsonl``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from teamdeck.model.base import OurModel
from teamdeck.model.reported import all_finite, read_cost
from teamdeck.text import one_line

RunState = Literal["running", "ended", "lost"]
RunOutcome = Literal["succeeded", "failed", "timeout", "stopped", "lost", "unknown"]
TRIGGERS = ("message", "created", "wake", "retry")


class RunMessage(OurModel):
    """One message a run was woken for (unread when it started)."""

    sender: str = Field(alias="from")
    timestamp: str
    kind: str
    key: str = Field(description="a digest of sender, timestamp and text: the message's identity")


class RunnerRef(OurModel):
    """The ``teamdeck run`` process that started (or adopted) a run."""

    pid: int
    host: str
    started: float | None = None


class RunRecord(OurModel):
    """``run.yaml``: everything known about one run (see docs/protocol.md, "Running the agents")."""

    id: str
    team: str
    member: str
    runtime: str
    trigger: str
    attempt: int = 1
    retryOf: str | None = None
    messages: list[RunMessage] = Field(default_factory=list)
    argv: list[str] = Field(default_factory=list)
    cwd: str = ""
    pid: int | None = None
    processStarted: float | None = Field(default=None, description="the process's start time (epoch s, /proc)")
    runner: RunnerRef | None = None
    state: RunState = "running"
    createdAt: str
    queuedAt: str | None = Field(
        default=None, description="when the wake it serves arrived (queue wait = start - this)"
    )
    startedAt: str | None = None
    endedAt: str | None = None
    exitStatus: int | None = None
    outcome: RunOutcome | None = None
    error: str | None = None
    sessionId: str | None = None
    usage: dict[str, Any] | None = None
    costUsd: float | None = Field(default=None, description="the cost the run reported: a finite number, 0 or more")
    costProblem: str | None = Field(
        default=None, description="why the run's cost could not be read: a member with a budget is held for a person"
    )
    result: str | None = None
    unreadAfter: int = Field(default=0, description="its messages still unread when it ended (a finding)")

    @model_validator(mode="before")
    @classmethod
    def _checked_numbers(cls, data: Any) -> Any:
        """A run.yaml is agent-writable (and an older teamdeck wrote ``costUsd: .nan``):
        a ``costUsd`` that is no cost is kept as the run's cost problem, not refused (the
        run, and the messages it owes, would vanish with it) and never read as free;
        ``usage`` holding a number that is not finite is left out."""
        if not isinstance(data, dict):
            return data
        cost = read_cost(data.get("costUsd"), "costUsd")
        if cost.problem is not None:
            data = {**data, "costUsd": None, "costProblem": data.get("costProblem") or f"run.yaml: {cost.problem}"}
        if not all_finite(data.get("usage")):
            data = {**data, "usage": None}
        return data

    @property
    def live(self) -> bool:
        return self.state == "running"

    @property
    def failed(self) -> bool:
        return self.outcome in ("failed", "timeout")

    @property
    def cost_shown(self) -> str:
        """The run's cost as every front shows it: ``$0.1234``, ``cost unknown: <why>``
        (made safe for a terminal: the problem quotes agent-written text), or ""."""
        if self.costProblem is not None:
            return f"cost unknown: {one_line(self.costProblem, 200)}"
        return f"${self.costUsd:.4f}" if self.costUsd is not None else ""
