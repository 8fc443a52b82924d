"""``agents/<agent-id>/artifacts/final.json``: a worker's structured final output.

Only ``status`` and ``summary`` are required so any agent can write one by hand; the
file is validated with the generated JSON Schema (schemas/worker-output.schema.json).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from teamdeck.model.base import Timestamp

WorkerStatus = Literal["completed", "blocked", "failed"]


class WorkerOutput(BaseModel):
    """What a worker reports when it stops."""

    model_config = ConfigDict(
        extra="allow",
        strict=True,
        json_schema_extra={
            "title": "Worker final output",
            "description": "A worker's structured final output (spec 000).",
        },
    )

    status: WorkerStatus = Field(description="completed, blocked (a person must answer `questions`) or failed")
    summary: str = Field(min_length=1, description="What the worker did or why it stopped, for a person")
    questions: list[str] = Field(default_factory=list, description="What the worker needs answered (when blocked)")
    nextActions: list[str] = Field(default_factory=list, description="What should happen next")
    changedFiles: list[str] = Field(default_factory=list, description="Files the worker changed (relative paths)")
    finishedAt: Timestamp | None = Field(default=None, description="When the worker finished (ISO-8601)")
