"""A run of a team member by ``teamdeck run``: ``runs/<team>/<member>/<run_id>/run.yaml``
(the folded state, replaced atomically) beside its append-only ``events.jsonl``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from teamdeck.model.base import OurModel

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
    costUsd: float | None = None
    result: str | None = None
    unreadAfter: int = Field(default=0, description="its messages still unread when it ended (a finding)")

    @property
    def live(self) -> bool:
        return self.state == "running"

    @property
    def failed(self) -> bool:
        return self.outcome in ("failed", "timeout")
