"""``tasks/<task-id>/shared/reports/joined-summary.json``: the machine entry of a join.

The same content as joined-summary.md, for scripts and the TUI. It holds nothing that
changes from run to run (no generation time), so joining the same outputs twice
produces the same bytes and rewrites nothing (spec 000 idempotence, F13).
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from teamdeck.model.base import ClosedModel, Id

ReportStatus = Literal["completed", "blocked", "failed", "invalid", "pending"]
"""A worker's status in a report: its final.json's ``status``, or ``invalid`` (the file
is unreadable or breaks the schema, or the agent directory was ignored), or ``pending``
(the agent directory has no final.json yet)."""

REPORT_STATUSES: tuple[ReportStatus, ...] = get_args(ReportStatus)


class OutputProblem(ClosedModel):
    """One thing wrong with a worker's output file."""

    file: str = Field(description="the file, relative to the task directory (agents/w1/artifacts/final.json)")
    path: str = Field(description="where in the file: a JSON path ($.questions[2]) or a line, or '' for the whole file")
    message: str = Field(description="what is wrong, sanitised to one line and truncated")


class WorkerEntry(ClosedModel):
    """One worker in the joined summary, in agent id order."""

    agentId: str = Field(description="the agent directory name (escaped when it is not a valid id)")
    status: ReportStatus
    summary: str = Field(default="", description="the worker's summary as written ('' when invalid or pending)")
    questions: list[str] = Field(default_factory=list, description="what the worker needs answered")
    nextActions: list[str] = Field(default_factory=list, description="what should happen next")
    valid: bool = Field(
        description="false exactly when status is invalid: the fields above were not taken from the file"
    )
    problems: list[OutputProblem] = Field(
        default_factory=list, description="why the output is invalid, most relevant first"
    )
    gateId: Id | None = Field(default=None, description="the gate a blocked worker waits on (see task.yaml gates[])")


class Totals(ClosedModel):
    """How many workers are in each status."""

    completed: int = Field(ge=0)
    blocked: int = Field(ge=0)
    failed: int = Field(ge=0)
    invalid: int = Field(ge=0)
    pending: int = Field(ge=0)
    total: int = Field(ge=0)


class JoinedSummary(ClosedModel):
    """The content of joined-summary.json."""

    taskId: Id
    workers: list[WorkerEntry]
    totals: Totals

    @classmethod
    def of(cls, task_id: str, workers: list[WorkerEntry]) -> JoinedSummary:
        """A summary of ``workers`` (sorted by agent id) with its totals counted."""
        ordered = sorted(workers, key=lambda worker: worker.agentId)
        counts = {status: sum(1 for worker in ordered if worker.status == status) for status in REPORT_STATUSES}
        return cls(taskId=task_id, workers=ordered, totals=Totals(**counts, total=len(ordered)))
