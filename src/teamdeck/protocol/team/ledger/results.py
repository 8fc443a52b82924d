"""What a team's ledger holds: its handshakes, findings, idle folds and roster, and the
codes they use (failure classes, notices, open states).

These are what the fronts show (``teamdeck doctor``, the Teams panel) and what the
protocol's shutdown and permission functions act on; they are kept apart from the rules
that make them, so a reader of a ledger imports nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from teamdeck.model.team import TeamConfig

FAILURE_CLASSES = {
    "not_enqueued": "not enqueued",
    "not_injected": "not injected",
    "not_consumed": "not consumed",
    "not_offline": "not offline",
    "team_delete_blocked": "TeamDelete blocked",
    "turn_failed": "turn failed",
}
"""The seed's failure classes: code → how people read it."""

NOTICES = {
    "unread_completed": "unread, task completed",
    "unread_reported": "unread, member reported since",
    "unread_offline": "unread, member offline since",
    "non_member": "message to a non-member",
    "unreadable_inbox": "unreadable inbox",
    "bad_entry": "malformed inbox entry (not a message, or a frame out of its schema)",
    "orphan_reply": "reply to an unknown request",
    "bad_log_record": "bad messages.jsonl record",
    "ignored": "ignored file",
}
"""Other things the ledger reports that are not handshake failures."""

DEFAULT_SHUTDOWN_TIMEOUT = timedelta(minutes=2)
"""How long a shutdown request may wait for its reply before it is overdue (the
workspace setting ``shutdownTimeoutSeconds`` overrides it)."""

OPEN_STATES = ("awaiting_response", "awaiting_decision", "approved")
"""Handshake states that still need something to happen (``approved`` shutdowns wait
for the member to go offline)."""


@dataclass(frozen=True)
class Handshake:
    """A request and its reply.

    Attributes:
        kind: ``shutdown``, ``plan``, ``permission`` or ``sandbox`` (a network host).
        request_id: the correlation id.
        member: the teammate concerned (shut down, or whose plan it is).
        requester: who sent the request.
        answerer: who must reply.
        requested_at: the request's timestamp.
        request_read: whether the answerer's inbox marks the request read.
        state: ``awaiting_response`` / ``approved`` / ``rejected`` / ``offline`` /
            ``superseded`` (shutdown); ``awaiting_decision`` / ``approved`` / ``rejected``
            (plan); ``awaiting_decision`` / ``answered`` / ``superseded`` (permission, sandbox).
        reply: the reply's type, if any.
        replied_at: the reply's timestamp.
        note: the reply's reason or feedback.
        failure: a failure class code (:data:`FAILURE_CLASSES`), or None.
        detail: one line for people.
        overdue: a shutdown request still awaiting its reply past the timeout.
    """

    kind: str
    request_id: str
    member: str
    requester: str
    answerer: str
    requested_at: str
    request_read: bool
    state: str
    reply: str | None = None
    replied_at: str | None = None
    note: str | None = None
    failure: str | None = None
    detail: str = ""
    overdue: bool = False

    @property
    def is_open(self) -> bool:
        return self.state in OPEN_STATES

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "requestId": self.request_id,
            "member": self.member,
            "requester": self.requester,
            "answerer": self.answerer,
            "requestedAt": self.requested_at,
            "requestRead": self.request_read,
            "state": self.state,
            "open": self.is_open,
            "reply": self.reply,
            "repliedAt": self.replied_at,
            "note": self.note,
            "failure": self.failure,
            "detail": self.detail,
            "overdue": self.overdue,
        }


@dataclass(frozen=True)
class Finding:
    """A failure (``code`` in :data:`FAILURE_CLASSES`) or notice (in :data:`NOTICES`)."""

    code: str
    detail: str
    member: str | None = None
    request_id: str | None = None
    log_id: str | None = None

    @property
    def is_failure(self) -> bool:
        return self.code in FAILURE_CLASSES

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "failure": self.is_failure,
            "label": FAILURE_CLASSES.get(self.code) or NOTICES.get(self.code, self.code),
            "member": self.member,
            "requestId": self.request_id,
            "logId": self.log_id,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class IdleFold:
    """A member's idle notifications folded into one line.

    Attributes:
        member: who sent them.
        count: how many.
        last_reason: ``idleReason`` of the newest (``available`` / ``interrupted`` / ``failed``).
        last_at: its timestamp.
        idle_since: ``last_at`` if the member sent nothing else after it, else None.
        failure: the newest one's ``failureReason`` when its turn failed (``failed``
            when it gives none), else None.
    """

    member: str
    count: int
    last_reason: str | None
    last_at: str
    idle_since: str | None
    failure: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "member": self.member,
            "count": self.count,
            "lastReason": self.last_reason,
            "lastAt": self.last_at,
            "idleSince": self.idle_since,
            "failure": self.failure,
        }


@dataclass(frozen=True)
class TaskReport:
    """A ``task_completed`` frame: who reported which task done, and when."""

    member: str
    task_id: str
    subject: str | None
    at: str


@dataclass(frozen=True)
class Termination:
    """A ``teammate_terminated`` frame: the teammate it names, what it says, and when."""

    member: str
    message: str
    at: str


@dataclass(frozen=True)
class RosterEntry:
    """One roster line: who, whether active, unread messages waiting for them."""

    name: str
    agent_type: str | None
    color: str | None
    active: bool
    lead: bool
    unread: int
    messages: int

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "agentType": self.agent_type,
            "color": self.color,
            "active": self.active,
            "lead": self.lead,
            "unread": self.unread,
            "messages": self.messages,
        }


@dataclass
class Ledger:
    """Everything :func:`build_ledger` found for one team."""

    team: str
    config: TeamConfig
    members: list[RosterEntry] = field(default_factory=list)
    handshakes: list[Handshake] = field(default_factory=list)
    idles: dict[str, IdleFold] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    delete_blockers: list[str] = field(default_factory=list)
    reports: list[TaskReport] = field(default_factory=list)
    terminations: dict[str, Termination] = field(default_factory=dict)
    """member (lower-cased) → the newest ``teammate_terminated`` naming it."""
    bad_frames: list[tuple[str, int, str, str]] = field(default_factory=list)
    """``(recipient, entry index, type, why)`` of each known frame out of its schema."""

    @property
    def failures(self) -> list[Finding]:
        """Handshake and delivery failures, each a finding with a failure class."""
        return [finding for finding in self.findings if finding.is_failure]

    @property
    def open_handshakes(self) -> list[Handshake]:
        return [handshake for handshake in self.handshakes if handshake.is_open]

    @property
    def healthy(self) -> bool:
        return not self.failures

    def to_json(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "description": self.config.description,
            "lead": self.config.lead_name,
            "healthy": self.healthy,
            "members": [m.to_json() for m in self.members],
            "handshakes": [h.to_json() for h in self.handshakes],
            "idle": [fold.to_json() for fold in self.idles.values()],
            "findings": [f.to_json() for f in self.findings],
            "deleteBlockers": self.delete_blockers,
            "taskReports": [
                {"member": r.member, "taskId": r.task_id, "subject": r.subject, "at": r.at} for r in self.reports
            ],
            "terminated": [{"member": t.member, "message": t.message, "at": t.at} for t in self.terminations.values()],
        }
