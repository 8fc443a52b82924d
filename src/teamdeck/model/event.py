"""One line of ``tasks/<task-id>/events.jsonl``."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from teamdeck.model.base import ClosedModel, Timestamp

EVENT_TYPES = (
    "task.created",
    "task.state_changed",
    "gate.blocked",
    "gate.approved",
    "gate.rejected",
    "join.completed",
)
"""The event types of the foundation; later protocol modules add theirs (docs/protocol.md)."""


class Event(ClosedModel):
    """An immutable record of something that happened to a task.

    ``id`` is a ULID: unique, and sortable by creation time; readers count each id once.
    """

    id: str = Field(pattern=r"^[0-9A-HJKMNP-TV-Z]{26}$")
    ts: Timestamp
    type: str = Field(pattern=r"^[a-z_]+(\.[a-z_]+)+$")
    actor: str
    payload: dict[str, Any] = Field(default_factory=dict)
