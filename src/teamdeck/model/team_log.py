"""One line of ``teams/<team>/messages.jsonl``: teamdeck's own log of what it did in a
Claude Code team.

Every message teamdeck sends is logged here *before* it is delivered to an inbox (R4),
so a send that failed half-way is still on record (the ledger's "not enqueued"), and
the inbox entry can be matched to its record by ``from`` + ``timestamp`` + ``text``
(Claude Code's entries carry no id). Team and roster changes made through teamdeck
are logged here too. Claude Code itself never reads this file.

A record is a :class:`~teamdeck.model.shape.Shape`: every ``send`` writes one, without
importing pydantic (its model, derived from the same fields, validates what is odd).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from teamdeck.model.shape import Shape, check_timestamp, field

SEND_TYPES = (
    "message",
    "broadcast",
    "shutdown_request",
    "shutdown_approved",
    "shutdown_rejected",
    "plan_approval_response",
    "permission_response",
    "structured",
)
"""Records of a message delivered to inboxes (``to``); ``structured`` is any other
protocol kind sent through :func:`teamdeck.protocol.team.messaging.sending.send_structured`."""

NOTE_TYPES = (
    "delivery_failed",
    "delivery_unconfirmed",
    "team_created",
    "member_added",
    "member_reactivated",
    "member_deactivated",
    "member_role_set",
    "team_delete_refused",
    "shutdown_superseded",
)
"""Records about a send (``ref`` names it) or about the team itself."""

LogType = Literal[
    "message",
    "broadcast",
    "shutdown_request",
    "shutdown_approved",
    "shutdown_rejected",
    "plan_approval_response",
    "permission_response",
    "structured",
    "delivery_failed",
    "delivery_unconfirmed",
    "team_created",
    "member_added",
    "member_reactivated",
    "member_deactivated",
    "member_role_set",
    "team_delete_refused",
    "shutdown_superseded",
]


class TeamLogRecord(Shape):
    """A record of ``messages.jsonl``. Only the fields a type needs are written.

    Attributes:
        id: ULID, unique; readers count each id once.
        ts: when teamdeck wrote the record.
        type: see :data:`SEND_TYPES` and :data:`NOTE_TYPES`.
        actor: who acted (``human:<login>``, or an agent's id).
        from_: the sender (member name), for sends.
        to: the recipients (canonical member names), for sends and delivery notes.
        summary: the message summary (plain messages and broadcasts).
        requestId: the handshake id (shutdown, plan and permission messages; for
            ``shutdown_superseded``, the request that was replaced).
        kind: the protocol ``type`` of a ``structured`` send.
        timestamp: the inbox entry's ``timestamp`` (with ``from`` and ``text``, its identity).
        text: the inbox entry's ``text``, exactly as delivered.
        ref: the id of the send a delivery note is about (for ``shutdown_superseded``,
            the send of the request that replaced it).
        member: the member a roster change is about.
        reason: a reason given (deactivation, rejection, the note of a permission
            answer...).
        error: why a delivery failed.
        blockers: the active members that blocked a team delete.
        key: what makes a send happen once (protocol/team/keyed_sends.py): a second send
            with the same key only finishes the first.
    """

    MODEL_CONFIG: ClassVar[dict[str, Any]] = {
        "extra": "forbid",
        "strict": True,
        "populate_by_name": True,
        "defer_build": True,
    }
    """Ours alone: strict types, nothing unknown (model/base.py ``ClosedModel``)."""
    EXTRA: ClassVar[str] = "forbid"

    id: str = field(pattern=r"^[0-9A-HJKMNP-TV-Z]{26}$")
    ts: str = field(check=check_timestamp, schema={"format": "date-time"})
    type: LogType
    actor: str
    from_: str | None = field(default=None, wire="from")
    to: list[str] | None = None
    summary: str | None = None
    requestId: str | None = None
    kind: str | None = None
    timestamp: str | None = None
    text: str | None = None
    ref: str | None = None
    member: str | None = None
    reason: str | None = None
    error: str | None = None
    blockers: list[str] | None = None
    key: str | None = field(default=None, max_length=300)

    def to_json(self) -> dict[str, object]:
        """The record as written (``from`` spelled as on disk, unset fields left out)."""
        return self._dump(exclude_unset=False, exclude_none=True)
