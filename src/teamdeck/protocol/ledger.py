"""The handshake ledger and delivery diagnostics of a team (seed 004 §6-§8).

Built from what is on disk - config.json, every inbox, and teamdeck's messages.jsonl -
it correlates every request with its reply by request id and classifies what went
wrong with the seed's failure classes:

- ``not_enqueued`` (未入队): teamdeck logged a send that is not in the recipient's inbox
  (the delivery failed, or another writer lost it).
- ``not_injected`` (未注入): a message is still unread although its recipient went idle
  *after* it arrived (a turn ended without seeing it).
- ``not_consumed`` (未消费): a shutdown request was read, the member went idle after it,
  and no reply came.
- ``not_offline`` (未下线): a member approved its shutdown yet is still active, or a
  shutdown request has waited past the timeout (``shutdownTimeoutSeconds``, default
  2 min) with no reply and no finer class (the handshake is ``overdue``: resend or force).
- ``team_delete_blocked`` (TeamDelete 被阻塞): a delete was refused and active members
  still block it.

A shutdown request named in a ``shutdown_superseded`` record of messages.jsonl (it was
resent under a new id) and a permission request its requester asked again (same
``tool_use_id``) or that an offline member left behind are ``superseded``: closed.

It also folds idle notifications per member (count, last reason, idle since), and
lists messages addressed to names that are not members, inboxes that cannot be read,
and entries that are not messages. Pure reading: nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from teamdeck.clock import parse_iso
from teamdeck.model.claude import (
    IdleNotification,
    PermissionRequest,
    PermissionResponse,
    PlanApprovalRequest,
    PlanApprovalResponse,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownRequest,
    TeamConfig,
)
from teamdeck.model.team_log import SEND_TYPES, TeamLogRecord
from teamdeck.protocol.messaging import TeamInboxes, read_inboxes
from teamdeck.protocol.teamlog import TeamLog
from teamdeck.protocol.teams import delete_blockers, read_team
from teamdeck.store.inbox import Inbox, InboxEntry
from teamdeck.store.workspace import Workspace

FAILURE_CLASSES = {
    "not_enqueued": "not enqueued",
    "not_injected": "not injected",
    "not_consumed": "not consumed",
    "not_offline": "not offline",
    "team_delete_blocked": "TeamDelete blocked",
}
"""The seed's failure classes: code → how people read it."""

NOTICES = {
    "non_member": "message to a non-member",
    "unreadable_inbox": "unreadable inbox",
    "bad_entry": "entry that is not a message",
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
        kind: ``shutdown``, ``plan`` or ``permission``.
        request_id: the correlation id.
        member: the teammate concerned (shut down, or whose plan it is).
        requester: who sent the request.
        answerer: who must reply.
        requested_at: the request's timestamp.
        request_read: whether the answerer's inbox marks the request read.
        state: ``awaiting_response`` / ``approved`` / ``rejected`` / ``offline`` /
            ``superseded`` (shutdown); ``awaiting_decision`` / ``approved`` / ``rejected``
            (plan); ``awaiting_decision`` / ``answered`` / ``superseded`` (permission).
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
    """

    member: str
    count: int
    last_reason: str | None
    last_at: str
    idle_since: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "member": self.member,
            "count": self.count,
            "lastReason": self.last_reason,
            "lastAt": self.last_at,
            "idleSince": self.idle_since,
        }


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
        }


def _moment(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return parse_iso(text)
    except ValueError:
        return None


def _later(a: str | None, b: str | None) -> bool:
    """Whether timestamp ``a`` is strictly after ``b`` (False if either is unreadable)."""
    first, second = _moment(a), _moment(b)
    return first is not None and second is not None and first > second


def _newer(a: datetime | None, b: datetime | None) -> datetime | None:
    """The later of two readable moments (an unreadable one, None, never wins)."""
    if a is None:
        return b
    return a if b is None or a > b else b


_HANDSHAKE_REQUESTS = (ShutdownRequest, PlanApprovalRequest, PermissionRequest)
_HANDSHAKE_REPLIES = (ShutdownApproved, ShutdownRejected, PlanApprovalResponse, PermissionResponse)
_NOT_ORDINARY = (ShutdownRequest, PlanApprovalResponse, IdleNotification)
"""Unread messages of these kinds are classified by their handshake or idle fold, not
as ordinary unread messages (``not_injected``)."""


@dataclass(frozen=True)
class _IdleTally:
    """One sender's idle notifications within one inbox: how many, and the newest
    (the greatest readable timestamp; on a tie, or when none is readable, the later
    in file order)."""

    count: int
    moment: datetime | None
    at: str
    reason: str | None


@dataclass(frozen=True)
class InboxFold:
    """What one inbox contributes to its team's ledger, folded once per inbox read.

    The ledger combines these per inbox (cheap: they hold only handshake messages,
    unread messages and per-sender summaries), so a change to one inbox folds that
    inbox alone however many messages the others hold.

    Attributes:
        inbox: the inbox folded (a newer read of the same file is folded again).
        messages, unread: how many messages, how many of them unread.
        requests, replies: the handshake requests and replies in file order.
        ordinary_unread: unread messages that no handshake or idle fold classifies.
        problems: one line per entry that is not a message.
        present: ``(from, timestamp, text)`` of every message (what a logged send is
            looked up by).
        idle_latest: sender (lower-cased) → the newest readable time it reported idle.
        idles: sender (as written) → its idle notifications here.
        spoke: sender (lower-cased) → the newest readable time it sent anything else.
    """

    inbox: Inbox
    messages: int
    unread: int
    requests: tuple[InboxEntry, ...]
    replies: tuple[InboxEntry, ...]
    ordinary_unread: tuple[InboxEntry, ...]
    problems: tuple[str, ...]
    present: frozenset[tuple[str, str, str]]
    idle_latest: dict[str, datetime]
    idles: dict[str, _IdleTally]
    spoke: dict[str, datetime]

    @classmethod
    def of(cls, inbox: Inbox, earlier: InboxFold | None = None) -> InboxFold:
        """Fold ``inbox``; when it extends the inbox ``earlier`` folded (the same entries
        first, :meth:`Inbox.extends`), only the entries after them are folded."""
        start = 0
        requests: list[InboxEntry] = []
        replies: list[InboxEntry] = []
        ordinary: list[InboxEntry] = []
        problems: list[str] = []
        present: set[tuple[str, str, str]] = set()
        idle_latest: dict[str, datetime] = {}
        idles: dict[str, _IdleTally] = {}
        spoke: dict[str, datetime] = {}
        messages = unread = 0
        if earlier is not None and inbox.extends(earlier.inbox):
            start = len(earlier.inbox.entries)
            requests, replies = list(earlier.requests), list(earlier.replies)
            ordinary, problems, present = list(earlier.ordinary_unread), list(earlier.problems), set(earlier.present)
            idle_latest, idles, spoke = dict(earlier.idle_latest), dict(earlier.idles), dict(earlier.spoke)
            messages, unread = earlier.messages, earlier.unread
        for entry in inbox.entries[start:]:
            message, kind = entry.message, entry.kind
            if entry.problem:
                problems.append(entry.problem)
            if message is None or kind is None:
                continue
            messages += 1
            unread += not message.read
            present.add((message.from_, message.timestamp, message.text))
            if isinstance(kind, _HANDSHAKE_REQUESTS):
                requests.append(entry)
            elif isinstance(kind, _HANDSHAKE_REPLIES):
                replies.append(entry)
            if not message.read and not isinstance(kind, _NOT_ORDINARY):
                ordinary.append(entry)
            if isinstance(kind, IdleNotification):
                who = kind.from_ or message.from_
                at = kind.timestamp or message.timestamp
                moment = _moment(at)
                if moment is not None:
                    idle_latest[who.lower()] = _newer(idle_latest.get(who.lower()), moment) or moment
                idles[who] = _count_idle(idles.get(who), _IdleTally(1, moment, at, kind.idleReason))
            else:
                moment = _moment(message.timestamp)
                if moment is not None:
                    spoke[message.from_.lower()] = _newer(spoke.get(message.from_.lower()), moment) or moment
        return cls(
            inbox,
            messages,
            unread,
            tuple(requests),
            tuple(replies),
            tuple(ordinary),
            tuple(problems),
            frozenset(present),
            idle_latest,
            idles,
            spoke,
        )


def _count_idle(before: _IdleTally | None, after: _IdleTally) -> _IdleTally:
    """Two tallies of the same sender, ``after`` later in file order, as one."""
    if before is None:
        return after
    newest = after
    if before.moment is not None and (after.moment is None or before.moment > after.moment):
        newest = before
    return _IdleTally(before.count + after.count, newest.moment, newest.at, newest.reason)


@dataclass
class _LogFold:
    """What the ledger needs of messages.jsonl, folded record by record as the log grows.

    Attributes:
        taken: how many of the log reader's records are folded.
        generation: the reader's generation they came from (a replaced log starts over).
        sends: recipient → ``(record number, position in to, record)`` of each send to it.
        versions: recipient → a number that changes whenever a send to it or a failed
            delivery to it is logged (its findings are computed again).
        failed: ``(send id, recipient)`` → the error of its failed delivery.
        superseded: shutdown request id → the record that superseded it.
        refused: the newest ``team_delete_refused`` record.
    """

    taken: int = 0
    generation: int = 0
    sends: dict[str, list[tuple[int, int, TeamLogRecord]]] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    failed: dict[tuple[str | None, str], str | None] = field(default_factory=dict)
    superseded: dict[str, TeamLogRecord] = field(default_factory=dict)
    refused: TeamLogRecord | None = None

    def add(self, record: TeamLogRecord) -> None:
        number = self.taken
        self.taken += 1
        if record.type in SEND_TYPES:
            for position, recipient in enumerate(record.to or []):
                self.sends.setdefault(recipient, []).append((number, position, record))
                self.versions[recipient] = self.versions.get(recipient, 0) + 1
        elif record.type == "delivery_failed":
            recipient = (record.to or [""])[0]
            self.failed[(record.ref, recipient)] = record.error
            self.versions[recipient] = self.versions.get(recipient, 0) + 1
        elif record.type == "shutdown_superseded" and record.requestId:
            self.superseded[record.requestId] = record
        elif record.type == "team_delete_refused":
            self.refused = record


class LedgerFold:
    """A team's ledger state kept between builds (protocol/ledger.py
    :func:`build_ledger`): each inbox folded once per read (:class:`InboxFold`), the
    log folded only as far as it grew (through its incremental reader), and each
    recipient's delivery findings computed again only when its inbox, its logged sends
    or the roster changed. A build with a fresh one reads and folds everything; a
    build with a kept one gives the same ledger.
    """

    def __init__(self, ws: Workspace, team: str) -> None:
        self.reader = TeamLog(ws, team)
        self._inboxes: dict[str, InboxFold] = {}
        self._log = _LogFold()
        self._delivery: dict[str, tuple[InboxFold | None, tuple[object, ...], list[tuple[int, int, int, Finding]]]] = {}

    def inbox(self, inbox: Inbox) -> InboxFold:
        """The fold of ``inbox``, made again only if this is another read of it (and
        then from the earlier fold when the inbox only grew)."""
        fold = self._inboxes.get(inbox.recipient)
        if fold is None or fold.inbox is not inbox:
            fold = self._inboxes[inbox.recipient] = InboxFold.of(inbox, fold)
        return fold

    def log(self) -> tuple[_LogFold, list[str]]:
        """The log folded up to its end, and one line per bad record."""
        records, bad = self.reader.read()
        if self.reader.generation != self._log.generation or len(records) < self._log.taken:
            self._log = _LogFold(generation=self.reader.generation)
            self._delivery.clear()
        for record in records[self._log.taken :]:
            self._log.add(record)
        return self._log, bad

    def deliveries(self, ctx: _Context, log: _LogFold) -> list[Finding]:
        """``non_member`` and ``not_enqueued`` findings of every logged send, in log
        order; a recipient's are computed again only when what they depend on changed."""
        keyed: list[tuple[int, int, int, Finding]] = []
        for recipient, sends in log.sends.items():
            fold = ctx.folds.get(recipient)
            key = (log.versions.get(recipient), ctx.is_member(recipient), recipient in ctx.inboxes.unreadable)
            cached = self._delivery.get(recipient)
            if cached is None or cached[0] is not fold or cached[1] != key:
                cached = self._delivery[recipient] = (fold, key, _delivery_findings(ctx, log, recipient, sends, fold))
            keyed += cached[2]
        for gone in set(self._delivery) - set(log.sends):
            del self._delivery[gone]
        keyed.sort(key=lambda item: item[:3])
        return [finding for *_order, finding in keyed]


class _Context:
    """What the classification rules share: the roster, the messages, idle times."""

    def __init__(
        self,
        config: TeamConfig,
        inboxes: TeamInboxes,
        folds: dict[str, InboxFold],
        now: datetime,
        shutdown_timeout: timedelta,
    ) -> None:
        self.config = config
        self.inboxes = inboxes
        self.folds = folds
        self.now = now
        self.shutdown_timeout = shutdown_timeout
        self.requests = [(recipient, entry) for recipient, fold in folds.items() for entry in fold.requests]
        self.replies = [(recipient, entry) for recipient, fold in folds.items() for entry in fold.replies]
        self.idle_latest: dict[str, datetime] = {}
        for fold in folds.values():
            for who, moment in fold.idle_latest.items():
                self.idle_latest[who] = _newer(self.idle_latest.get(who), moment) or moment

    def idle_after(self, member: str, moment: str) -> bool:
        """Whether ``member`` reported idle after ``moment`` (a turn ended since)."""
        made = _moment(moment)
        latest = self.idle_latest.get(member.lower())
        return made is not None and latest is not None and latest > made

    def is_offline(self, member: str) -> bool:
        found = self.config.member(member)
        return found is None or not found.isActive

    def is_member(self, name: str) -> bool:
        return self.config.is_lead(name) or self.config.member(name) is not None

    def overdue(self, moment: str) -> bool:
        """Whether a request made at ``moment`` has waited the shutdown timeout or more."""
        made = _moment(moment)
        return made is not None and self.now - made >= self.shutdown_timeout


def duration(span: timedelta) -> str:
    """A duration in a few characters: ``90s``, ``2m``, ``1h30m``."""
    seconds = max(0, int(span.total_seconds()))
    if seconds < 60 or seconds % 60:
        return f"{seconds}s" if seconds < 60 else f"{seconds // 60}m{seconds % 60}s"
    minutes = seconds // 60
    return f"{minutes}m" if minutes < 60 else f"{minutes // 60}h" + (f"{minutes % 60}m" if minutes % 60 else "")


def _shutdowns(ctx: _Context, superseded: dict[str, TeamLogRecord]) -> list[Handshake]:
    replies: dict[str, InboxEntry] = {}
    for _recipient, entry in ctx.replies:
        if isinstance(entry.kind, (ShutdownApproved, ShutdownRejected)):
            replies[entry.kind.requestId] = entry
    result = []
    for recipient, entry in ctx.requests:
        if not isinstance(entry.kind, ShutdownRequest):
            continue
        request, message = entry.kind, entry.message
        assert message is not None
        reply = replies.get(request.requestId)
        base: dict[str, Any] = dict(
            kind="shutdown",
            request_id=request.requestId,
            member=recipient,
            requester=message.from_,
            answerer=recipient,
            requested_at=message.timestamp,
            request_read=message.read,
        )
        if reply is not None:
            assert reply.message is not None and reply.kind is not None
            approved = isinstance(reply.kind, ShutdownApproved)
            when, note = reply.message.timestamp, getattr(reply.kind, "reason", None)
            if not approved:
                result.append(
                    Handshake(
                        **base,
                        state="rejected",
                        reply=reply.kind.KIND,
                        replied_at=when,
                        note=note,
                        detail=f"{recipient} rejected shutdown: {note or 'no reason given'}",
                    )
                )
            elif ctx.is_offline(recipient):
                result.append(
                    Handshake(
                        **base,
                        state="offline",
                        reply=reply.kind.KIND,
                        replied_at=when,
                        detail=f"{recipient} approved shutdown and is offline",
                    )
                )
            else:
                result.append(
                    Handshake(
                        **base,
                        state="approved",
                        reply=reply.kind.KIND,
                        replied_at=when,
                        failure="not_offline",
                        detail=f"{recipient} approved shutdown at {when} but is still active "
                        f"(isActive is not false); it blocks TeamDelete",
                    )
                )
            continue
        if ctx.is_offline(recipient):
            result.append(Handshake(**base, state="offline", detail=f"{recipient} went offline without replying"))
            continue
        if request.requestId in superseded:
            note = superseded[request.requestId]
            result.append(
                Handshake(
                    **base,
                    state="superseded",
                    note=note.reason,
                    detail=f"shutdown request to {recipient} superseded at {note.ts}"
                    + (f": {note.reason}" if note.reason else ""),
                )
            )
            continue
        overdue = ctx.overdue(message.timestamp)
        if not message.read and ctx.idle_after(recipient, message.timestamp):
            result.append(
                Handshake(
                    **base,
                    state="awaiting_response",
                    failure="not_injected",
                    detail=f"shutdown request still unread although {recipient} went idle after it",
                    overdue=overdue,
                )
            )
        elif message.read and ctx.idle_after(recipient, message.timestamp):
            result.append(
                Handshake(
                    **base,
                    state="awaiting_response",
                    failure="not_consumed",
                    detail=f"{recipient} read the shutdown request and went idle without a shutdown_response",
                    overdue=overdue,
                )
            )
        elif overdue:
            result.append(
                Handshake(
                    **base,
                    state="awaiting_response",
                    failure="not_offline",
                    detail=f"awaiting shutdown_response from {recipient} since {message.timestamp} "
                    f"(timeout {duration(ctx.shutdown_timeout)}); resend the request or force it offline",
                    overdue=True,
                )
            )
        else:
            result.append(
                Handshake(
                    **base,
                    state="awaiting_response",
                    detail=f"awaiting shutdown_response from {recipient} since {message.timestamp}",
                )
            )
    return result


def _plans(ctx: _Context) -> list[Handshake]:
    responses: dict[str, tuple[str, InboxEntry]] = {}
    for recipient, entry in ctx.replies:
        if isinstance(entry.kind, PlanApprovalResponse):
            responses[entry.kind.requestId] = (recipient, entry)
    result = []
    for recipient, entry in ctx.requests:
        if not isinstance(entry.kind, PlanApprovalRequest):
            continue
        message = entry.message
        assert message is not None
        base: dict[str, Any] = dict(
            kind="plan",
            request_id=entry.kind.requestId,
            member=message.from_,
            requester=message.from_,
            answerer=recipient,
            requested_at=message.timestamp,
            request_read=message.read,
        )
        answer = responses.get(entry.kind.requestId)
        if answer is None:
            result.append(
                Handshake(
                    **base,
                    state="awaiting_decision",
                    detail=f"plan from {message.from_} awaits approval by {recipient} since {message.timestamp}",
                )
            )
            continue
        member, reply = answer
        kind, reply_message = reply.kind, reply.message
        assert isinstance(kind, PlanApprovalResponse) and reply_message is not None
        state = "approved" if kind.approved else "rejected"
        failure = None
        detail = f"plan of {member} {state}" + (f": {kind.feedback}" if kind.feedback else "")
        if not reply_message.read and ctx.idle_after(member, reply_message.timestamp):
            failure = "not_injected"
            detail = f"plan_approval_response still unread although {member} went idle after it"
        result.append(
            Handshake(
                **base,
                state=state,
                reply=kind.KIND,
                replied_at=reply_message.timestamp,
                note=kind.feedback,
                failure=failure,
                detail=detail,
            )
        )
    return result


def _permissions(ctx: _Context) -> list[Handshake]:
    responses = {
        entry.kind.request_id: entry for _r, entry in ctx.replies if isinstance(entry.kind, PermissionResponse)
    }
    asked: dict[tuple[str, str], str] = {}  # (requester, tool_use_id) -> its newest request id
    for _recipient, entry in ctx.requests:
        if isinstance(entry.kind, PermissionRequest) and entry.kind.tool_use_id and entry.message is not None:
            key = (entry.message.from_.lower(), entry.kind.tool_use_id)
            newest = asked.get(key)
            if newest is None or not _later(newest, entry.message.timestamp):
                asked[key] = entry.message.timestamp
    result = []
    for recipient, entry in ctx.requests:
        if not isinstance(entry.kind, PermissionRequest):
            continue
        message, request = entry.message, entry.kind
        assert message is not None
        base: dict[str, Any] = dict(
            kind="permission",
            request_id=request.request_id,
            member=message.from_,
            requester=message.from_,
            answerer=recipient,
            requested_at=message.timestamp,
            request_read=message.read,
        )
        what = f"{request.tool_name or 'a tool'}" + (f" ({request.description})" if request.description else "")
        answer = responses.get(request.request_id)
        retried = request.tool_use_id and _later(
            asked.get((message.from_.lower(), request.tool_use_id)), message.timestamp
        )
        if answer is None and (retried or ctx.is_offline(message.from_)):
            why = "asked again for the same tool use" if retried else "is offline"
            result.append(
                Handshake(
                    **base,
                    state="superseded",
                    detail=f"{message.from_}'s request to use {what} is superseded: {message.from_} {why}",
                )
            )
            continue
        if answer is None:
            result.append(
                Handshake(
                    **base,
                    state="awaiting_decision",
                    detail=f"{message.from_} asks {recipient} to allow {what} since {message.timestamp}",
                )
            )
            continue
        assert isinstance(answer.kind, PermissionResponse) and answer.message is not None
        result.append(
            Handshake(
                **base,
                state="answered",
                reply=answer.kind.KIND,
                replied_at=answer.message.timestamp,
                note=answer.kind.subtype,
                detail=f"{recipient} answered {message.from_}'s request "
                f"to use {what}: {answer.kind.subtype or 'answered'}",
            )
        )
    return result


def _orphans(ctx: _Context) -> list[Finding]:
    requested = {entry.kind.correlation_id for _r, entry in ctx.requests if isinstance(entry.kind, _HANDSHAKE_REQUESTS)}
    return [
        Finding(
            "orphan_reply",
            f"{entry.kind.KIND} from {entry.message.from_} answers {entry.kind.correlation_id}, "
            "a request not found in any inbox",
            member=entry.message.from_,
            request_id=entry.kind.correlation_id,
        )
        for _r, entry in ctx.replies
        if entry.message is not None
        and isinstance(entry.kind, _HANDSHAKE_REPLIES)
        and entry.kind.correlation_id not in requested
    ]


def _unread_after_idle(ctx: _Context) -> list[Finding]:
    """``not_injected`` for ordinary messages (handshakes are classified on their own)."""
    findings = []
    for recipient, fold in ctx.folds.items():
        for entry in fold.ordinary_unread:
            message, kind = entry.message, entry.kind
            assert message is not None and kind is not None
            if ctx.idle_after(recipient, message.timestamp):
                findings.append(
                    Finding(
                        "not_injected",
                        f"{kind.KIND} from {message.from_} at {message.timestamp} "
                        f"is still unread although {recipient} went idle after it",
                        member=recipient,
                    )
                )
    return findings


def _delivery_findings(
    ctx: _Context, log: _LogFold, recipient: str, sends: list[tuple[int, int, TeamLogRecord]], fold: InboxFold | None
) -> list[tuple[int, int, int, Finding]]:
    """The findings of the sends logged to ``recipient``, each with its place in the
    log (record number, position in ``to``, then non-member before not-enqueued)."""
    member = ctx.is_member(recipient)
    unreadable = recipient in ctx.inboxes.unreadable
    present = fold.present if fold is not None else frozenset()
    findings = []
    for number, position, record in sends:
        if not member:
            findings.append(
                (
                    number,
                    position,
                    0,
                    Finding(
                        "non_member",
                        f"{record.type} {record.id} was sent to '{recipient}', who is not a "
                        "member of the team (any more)",
                        member=recipient,
                        log_id=record.id,
                    ),
                )
            )
        if unreadable or (record.from_, record.timestamp, record.text) in present:
            continue
        error = log.failed.get((record.id, recipient))
        findings.append(
            (
                number,
                position,
                1,
                Finding(
                    "not_enqueued",
                    f"{record.type} {record.id} to {recipient} is logged but not in "
                    f"its inbox" + (f" (delivery failed: {error})" if error else ""),
                    member=recipient,
                    request_id=record.requestId,
                    log_id=record.id,
                ),
            )
        )
    return findings


def _idle_folds(ctx: _Context) -> dict[str, IdleFold]:
    """Each sender's idle notifications over every inbox: how many, the newest (the
    greatest readable timestamp; on a tie the later inbox, then the later entry), and
    whether it is still idle (it sent nothing else after that)."""
    tallies: dict[str, _IdleTally] = {}
    spoke: dict[str, datetime] = {}
    for fold in ctx.folds.values():
        for who, tally in fold.idles.items():
            tallies[who] = _count_idle(tallies.get(who), tally)
        for sender, moment in fold.spoke.items():
            spoke[sender] = _newer(spoke.get(sender), moment) or moment
    folds = {}
    for who, tally in sorted(tallies.items()):
        other = spoke.get(who.lower())
        still = not (other is not None and tally.moment is not None and other > tally.moment)
        folds[who] = IdleFold(who, tally.count, tally.reason, tally.at, tally.at if still else None)
    return folds


def build_ledger(
    ws: Workspace,
    team: str,
    *,
    inboxes: TeamInboxes | None = None,
    fold: LedgerFold | None = None,
    shutdown_timeout: timedelta = DEFAULT_SHUTDOWN_TIMEOUT,
) -> Ledger:
    """Read the team and build its :class:`Ledger`.

    Args:
        ws: the workspace.
        team: the team.
        inboxes: the team's inboxes when the caller has just read them (the live view
            re-reads only the inbox that changed); read here when None.
        fold: what earlier builds of this team folded (the live view keeps one per
            team): only the inboxes read since and the log records appended since
            are folded now. None: everything is read and folded here.
        shutdown_timeout: how long a shutdown request waits before it is overdue
            (measured against the workspace clock).

    Raises:
        NotFound: no such team.
        InvalidFile: config.json is unreadable (inboxes that are unreadable are findings).
    """
    config = read_team(ws, team)
    if inboxes is None:
        inboxes = read_inboxes(ws, team)
    if fold is None:
        fold = LedgerFold(ws, team)
    log, bad_records = fold.log()
    folds = {recipient: fold.inbox(inbox) for recipient, inbox in inboxes.inboxes.items()}
    ctx = _Context(config, inboxes, folds, ws.clock(), shutdown_timeout)
    ledger = Ledger(team, config, delete_blockers=delete_blockers(config))
    for member in config.members:
        inbox = folds.get(member.name)
        ledger.members.append(
            RosterEntry(
                member.name,
                member.agentType,
                member.color,
                member.isActive,
                config.is_lead(member.name),
                inbox.unread if inbox else 0,
                inbox.messages if inbox else 0,
            )
        )
    ledger.handshakes = _shutdowns(ctx, log.superseded) + _plans(ctx) + _permissions(ctx)
    ledger.idles = _idle_folds(ctx)
    findings = ledger.findings
    findings += [
        Finding(h.failure, h.detail, member=h.member, request_id=h.request_id) for h in ledger.handshakes if h.failure
    ]
    findings += _unread_after_idle(ctx)
    findings += fold.deliveries(ctx, log)
    if log.refused is not None and ledger.delete_blockers:
        findings.append(
            Finding(
                "team_delete_blocked",
                f"team delete refused at {log.refused.ts}; still blocked by "
                f"{len(ledger.delete_blockers)} active member(s): {', '.join(ledger.delete_blockers)}",
            )
        )
    findings += _orphans(ctx)
    for recipient, folded in folds.items():
        if not ctx.is_member(recipient):
            findings.append(
                Finding(
                    "non_member",
                    f"inbox {recipient}.json holds {folded.messages} message(s) for '{recipient}', who is not a member",
                    member=recipient,
                )
            )
        findings += [
            Finding("bad_entry", f"inbox {recipient}.json {problem}", member=recipient) for problem in folded.problems
        ]
    findings += [
        Finding("unreadable_inbox", problem, member=recipient) for recipient, problem in inboxes.unreadable.items()
    ]
    findings += [Finding("bad_log_record", problem) for problem in bad_records]
    findings += [Finding("ignored", line) for line in inboxes.ignored]
    return ledger
