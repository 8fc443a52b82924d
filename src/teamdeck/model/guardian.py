"""Seed 003's guardian records: who was asked to verify a task, and what they found.

Both are immutable, written once as ``tasks/<task>/guardian/assignments/<id>.json`` and
``tasks/<task>/guardian/verdicts/<id>.json``; each is also carried whole in the event
that recorded it (``guardian.assigned``, ``guardian.verdict_recorded``), so a file lost
in a crash is rewritten from the log.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from teamdeck.model.base import ClosedModel, Id, Timestamp

VerdictStatus = Literal["PASS", "FAIL", "NEEDS_CHANGES"]
"""PASS → the task is verified; NEEDS_CHANGES → back to its workers (working) with the
recommendations; FAIL → blocked (input-required) with a ``verification-failed`` gate."""

Severity = Literal["fail", "needs-changes", "info"]
"""What a flag does to the verdict: any ``fail`` makes it FAIL, else any
``needs-changes`` makes it NEEDS_CHANGES; ``info`` flags only inform."""

VERDICT_FOR: dict[Severity, VerdictStatus] = {"fail": "FAIL", "needs-changes": "NEEDS_CHANGES", "info": "PASS"}


class Flag(BaseModel):
    """One finding of a guardian (plug-ins may add fields)."""

    model_config = ConfigDict(extra="allow", strict=True)

    code: str = Field(min_length=1, description="a short machine name, e.g. invalid-output, conflict, exit-code")
    severity: Severity
    message: str = Field(description="what was found, for a person")
    path: str | None = Field(
        default=None, description="the file it is about, relative to the task or the checked directory"
    )


class GuardianResult(BaseModel):
    """What a guardian's ``verify`` returns; the supervisor turns it into a verdict.

    ``status`` may be left out: it then follows from the flags' severities.
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    status: VerdictStatus | None = None
    flags: list[Flag] = Field(default_factory=list)
    evidence: dict[str, Any] = Field(default_factory=dict)
    recommendations: list[str] = Field(default_factory=list)

    def verdict_status(self) -> VerdictStatus:
        """The explicit status, else the worst flag's (no flags: PASS)."""
        if self.status is not None:
            return self.status
        severities = {flag.severity for flag in self.flags}
        for severity in ("fail", "needs-changes"):
            if severity in severities:
                return VERDICT_FOR[severity]
        return "PASS"


class GuardianAssignment(ClosedModel):
    """The supervisor asked a guardian to verify a task."""

    id: Id = Field(description="ga-<ulid>, also the file name")
    task: Id
    guardian: str = Field(description="the guardian's code (schema, command, diff or a plug-in)")
    reason: dict[str, Any] = Field(default_factory=dict, description="why the task is verified (who asked, what for)")
    timeoutS: float = Field(gt=0, description="the guardian is stopped after this many seconds (verdict FAIL)")
    createdAt: Timestamp
    createdBy: str


class GuardianVerdictSnapshot(ClosedModel):
    """What a guardian concluded about a task, frozen at the time it concluded."""

    id: Id = Field(description="gv-<ulid>, also the file name")
    assignment: Id
    task: Id
    guardian: str
    status: VerdictStatus
    flags: list[Flag] = Field(default_factory=list)
    evidence: dict[str, Any] = Field(default_factory=dict)
    recommendations: list[str] = Field(default_factory=list)
    durationS: float = Field(ge=0)
    createdAt: Timestamp
