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
from teamdeck.protocol.teamlog import TeamLog, read_log
from teamdeck.protocol.teams import delete_blockers, read_team
from teamdeck.store.inbox import InboxEntry
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


class _Context:
    """What the classification rules share: the roster, the messages, idle times."""

    def __init__(self, config: TeamConfig, inboxes: TeamInboxes, now: datetime, shutdown_timeout: timedelta) -> None:
        self.config = config
        self.inboxes = inboxes
        self.now = now
        self.shutdown_timeout = shutdown_timeout
        self.entries = inboxes.entries()
        self.idle_times: dict[str, list[str]] = {}
        for _recipient, entry in self.entries:
            if isinstance(entry.kind, IdleNotification):
                assert entry.message is not None  # a decoded kind comes from a message
                who = (entry.kind.from_ or entry.message.from_).lower()
                self.idle_times.setdefault(who, []).append(entry.kind.timestamp or entry.message.timestamp)

    def idle_after(self, member: str, moment: str) -> bool:
        """Whether ``member`` reported idle after ``moment`` (a turn ended since)."""
        return any(_later(at, moment) for at in self.idle_times.get(member.lower(), []))

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
    for _recipient, entry in ctx.entries:
        if isinstance(entry.kind, (ShutdownApproved, ShutdownRejected)):
            replies[entry.kind.requestId] = entry
    result = []
    for recipient, entry in ctx.entries:
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
    for recipient, entry in ctx.entries:
        if isinstance(entry.kind, PlanApprovalResponse):
            responses[entry.kind.requestId] = (recipient, entry)
    result = []
    for recipient, entry in ctx.entries:
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
        entry.kind.request_id: entry for _r, entry in ctx.entries if isinstance(entry.kind, PermissionResponse)
    }
    asked: dict[tuple[str, str], str] = {}  # (requester, tool_use_id) -> its newest request id
    for _recipient, entry in ctx.entries:
        if isinstance(entry.kind, PermissionRequest) and entry.kind.tool_use_id and entry.message is not None:
            key = (entry.message.from_.lower(), entry.kind.tool_use_id)
            newest = asked.get(key)
            if newest is None or not _later(newest, entry.message.timestamp):
                asked[key] = entry.message.timestamp
    result = []
    for recipient, entry in ctx.entries:
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
    requested = {
        entry.kind.correlation_id
        for _r, entry in ctx.entries
        if isinstance(entry.kind, (ShutdownRequest, PlanApprovalRequest, PermissionRequest))
    }
    return [
        Finding(
            "orphan_reply",
            f"{entry.kind.KIND} from {entry.message.from_} answers {entry.kind.correlation_id}, "
            "a request not found in any inbox",
            member=entry.message.from_,
            request_id=entry.kind.correlation_id,
        )
        for _r, entry in ctx.entries
        if entry.message is not None
        and isinstance(entry.kind, (ShutdownApproved, ShutdownRejected, PlanApprovalResponse, PermissionResponse))
        and entry.kind.correlation_id not in requested
    ]


def _unread_after_idle(ctx: _Context) -> list[Finding]:
    """``not_injected`` for ordinary messages (handshakes are classified on their own)."""
    findings = []
    for recipient, entry in ctx.entries:
        message, kind = entry.message, entry.kind
        assert message is not None and kind is not None
        if message.read or isinstance(entry.kind, (ShutdownRequest, PlanApprovalResponse, IdleNotification)):
            continue
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


def _log_findings(ctx: _Context, records: list[TeamLogRecord]) -> list[Finding]:
    present = {
        (recipient, entry.message.from_, entry.message.timestamp, entry.message.text)
        for recipient, entry in ctx.entries
        if entry.message is not None
    }
    failed = {
        (record.ref, (record.to or [""])[0]): record.error for record in records if record.type == "delivery_failed"
    }
    findings = []
    for record in records:
        if record.type not in SEND_TYPES:
            continue
        for recipient in record.to or []:
            if not ctx.is_member(recipient):
                findings.append(
                    Finding(
                        "non_member",
                        f"{record.type} {record.id} was sent to '{recipient}', who is not a "
                        "member of the team (any more)",
                        member=recipient,
                        log_id=record.id,
                    )
                )
            if recipient in ctx.inboxes.unreadable:
                continue
            if (recipient, record.from_, record.timestamp, record.text) not in present:
                error = failed.get((record.id, recipient))
                findings.append(
                    Finding(
                        "not_enqueued",
                        f"{record.type} {record.id} to {recipient} is logged but not in "
                        f"its inbox" + (f" (delivery failed: {error})" if error else ""),
                        member=recipient,
                        request_id=record.requestId,
                        log_id=record.id,
                    )
                )
    return findings


def _idle_folds(ctx: _Context) -> dict[str, IdleFold]:
    folds: dict[str, IdleFold] = {}
    last_other: dict[str, str] = {}
    for _recipient, entry in ctx.entries:
        message, kind = entry.message, entry.kind
        assert message is not None
        sender = message.from_
        if not isinstance(kind, IdleNotification):
            if last_other.get(sender.lower()) is None or _later(message.timestamp, last_other[sender.lower()]):
                last_other[sender.lower()] = message.timestamp
            continue
        who = kind.from_ or sender
        at = kind.timestamp or message.timestamp
        previous = folds.get(who)
        if previous is None or not _later(previous.last_at, at):
            folds[who] = IdleFold(who, (previous.count if previous else 0) + 1, kind.idleReason, at, at)
        else:
            folds[who] = IdleFold(who, previous.count + 1, previous.last_reason, previous.last_at, previous.last_at)
    for who, fold in folds.items():
        other = last_other.get(who.lower())
        if other is not None and _later(other, fold.last_at):
            folds[who] = IdleFold(who, fold.count, fold.last_reason, fold.last_at, None)
    return dict(sorted(folds.items()))


def build_ledger(
    ws: Workspace,
    team: str,
    *,
    inboxes: TeamInboxes | None = None,
    log: TeamLog | None = None,
    shutdown_timeout: timedelta = DEFAULT_SHUTDOWN_TIMEOUT,
) -> Ledger:
    """Read the team and build its :class:`Ledger`.

    Args:
        ws: the workspace.
        team: the team.
        inboxes: the team's inboxes when the caller has just read them (the live view
            re-reads only the inbox that changed); read here when None.
        log: the caller's incremental reader of the team's messages.jsonl (the live
            view keeps one per team); the whole log is read here when None.
        shutdown_timeout: how long a shutdown request waits before it is overdue
            (measured against the workspace clock).

    Raises:
        NotFound: no such team.
        InvalidFile: config.json is unreadable (inboxes that are unreadable are findings).
    """
    config = read_team(ws, team)
    if inboxes is None:
        inboxes = read_inboxes(ws, team)
    records, bad_records = log.read() if log is not None else read_log(ws, team)
    ctx = _Context(config, inboxes, ws.clock(), shutdown_timeout)
    ledger = Ledger(team, config, delete_blockers=delete_blockers(config))
    for member in config.members:
        inbox = inboxes.inboxes.get(member.name)
        ledger.members.append(
            RosterEntry(
                member.name,
                member.agentType,
                member.color,
                member.isActive,
                config.is_lead(member.name),
                len(inbox.unread) if inbox else 0,
                len(inbox.messages) if inbox else 0,
            )
        )
    superseded = {
        record.requestId: record for record in records if record.type == "shutdown_superseded" and record.requestId
    }
    ledger.handshakes = _shutdowns(ctx, superseded) + _plans(ctx) + _permissions(ctx)
    ledger.idles = _idle_folds(ctx)
    findings = ledger.findings
    findings += [
        Finding(h.failure, h.detail, member=h.member, request_id=h.request_id) for h in ledger.handshakes if h.failure
    ]
    findings += _unread_after_idle(ctx)
    findings += _log_findings(ctx, records)
    refusals = [record for record in records if record.type == "team_delete_refused"]
    if refusals and ledger.delete_blockers:
        findings.append(
            Finding(
                "team_delete_blocked",
                f"team delete refused at {refusals[-1].ts}; still blocked by "
                f"{len(ledger.delete_blockers)} active member(s): {', '.join(ledger.delete_blockers)}",
            )
        )
    findings += _orphans(ctx)
    for recipient, inbox in inboxes.inboxes.items():
        if not ctx.is_member(recipient):
            findings.append(
                Finding(
                    "non_member",
                    f"inbox {recipient}.json holds {len(inbox.messages)} message(s) for "
                    f"'{recipient}', who is not a member",
                    member=recipient,
                )
            )
        findings += [
            Finding("bad_entry", f"inbox {recipient}.json {problem}", member=recipient) for problem in inbox.problems
        ]
    findings += [
        Finding("unreadable_inbox", problem, member=recipient) for recipient, problem in inboxes.unreadable.items()
    ]
    findings += [Finding("bad_log_record", problem) for problem in bad_records]
    findings += [Finding("ignored", line) for line in inboxes.ignored]
    return ledger
