"""The rules of a team's ledger: pair each request with its reply and classify what
went wrong (seed 004 §6-§8).

Shutdown, plan-approval and permission requests each become a :class:`~.results.Handshake`
with its state and, when one applies, its failure class; ordinary messages left unread
after their recipient went idle and replies to unknown requests become findings. The
rules read what the fold gathered (:mod:`.fold`) through one :class:`Context` and never
the disk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any, TypeVar

from teamdeck.clock import duration
from teamdeck.formats.inboxes import InboxEntry
from teamdeck.model.team import (
    InboxMessage,
    PermissionRequest,
    PermissionResponse,
    PlanApprovalRequest,
    PlanApprovalResponse,
    SandboxPermissionRequest,
    SandboxPermissionResponse,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownRequest,
    TaskAssignment,
    TeamConfig,
)
from teamdeck.model.team_log import TeamLogRecord
from teamdeck.protocol.team.ledger.fold import HANDSHAKE_REPLIES, HANDSHAKE_REQUESTS, InboxFold
from teamdeck.protocol.team.ledger.moments import later, moment_of, newer
from teamdeck.protocol.team.ledger.results import Finding, Handshake

_Request = TypeVar("_Request", ShutdownRequest, PlanApprovalRequest, PermissionRequest, SandboxPermissionRequest)


class Context:
    """What the classification rules share: the roster, the folded inboxes (their
    requests and replies), when each member last went idle, the clock, and whether the
    team's tool wakes an inactive member with its inbox (the format's
    ``inbox_wakes_inactive``, asked only when an inactive member has unread messages:
    finding the format is a stat)."""

    def __init__(
        self,
        config: TeamConfig,
        folds: dict[str, InboxFold],
        now: datetime,
        shutdown_timeout: timedelta,
        *,
        inbox_wakes_inactive: Callable[[], bool] = lambda: True,
    ) -> None:
        self.config = config
        self.inbox_wakes_inactive = inbox_wakes_inactive
        self.folds = folds
        self.now = now
        self.shutdown_timeout = shutdown_timeout
        self.requests = [(recipient, entry) for recipient, fold in folds.items() for entry in fold.requests]
        self.replies = [(recipient, entry) for recipient, fold in folds.items() for entry in fold.replies]
        self.idle_latest: dict[str, datetime] = {}
        self.spoke_latest: dict[str, datetime] = {}
        self.completed: dict[str, set[str]] = {}
        for fold in folds.values():
            for who, moment in fold.idle_latest.items():
                self.idle_latest[who] = newer(self.idle_latest.get(who), moment) or moment
            for who, moment in fold.spoke.items():
                self.spoke_latest[who] = newer(self.spoke_latest.get(who), moment) or moment
            for who, task_ids in fold.completed.items():
                self.completed.setdefault(who, set()).update(task_ids)

    def requests_of(self, kind: type[_Request]) -> Iterator[tuple[str, _Request, InboxMessage]]:
        """Every request of ``kind`` in the team's inboxes: its recipient, the request
        and the message that carried it."""
        for recipient, entry in self.requests:
            if isinstance(entry.kind, kind) and entry.message is not None:
                yield recipient, entry.kind, entry.message

    def idle_after(self, member: str, moment: str) -> bool:
        """Whether ``member`` reported idle after ``moment`` (a turn ended since)."""
        made = moment_of(moment)
        latest = self.idle_latest.get(member.lower())
        return made is not None and latest is not None and latest > made

    def spoke_after(self, member: str, moment: str) -> bool:
        """Whether ``member`` sent anything but an idle notification after ``moment``."""
        made = moment_of(moment)
        latest = self.spoke_latest.get(member.lower())
        return made is not None and latest is not None and latest > made

    def is_offline(self, member: str) -> bool:
        found = self.config.member(member)
        return found is None or not found.isActive

    def is_member(self, name: str) -> bool:
        return self.config.is_lead(name) or self.config.member(name) is not None

    def overdue(self, moment: str) -> bool:
        """Whether a request made at ``moment`` has waited the shutdown timeout or more."""
        made = moment_of(moment)
        return made is not None and self.now - made >= self.shutdown_timeout


def classify_handshakes(ctx: Context, superseded: dict[str, TeamLogRecord]) -> list[Handshake]:
    """Every handshake of the team: its shutdowns (``superseded``: request id → the log
    record that superseded it), then its plan approvals, its permission requests and
    its sandbox (network host) permission requests."""
    return _shutdowns(ctx, superseded) + _plans(ctx) + _permissions(ctx) + _sandboxes(ctx)


def _asked(kind: str, request_id: str, recipient: str, message: InboxMessage, *, member: str) -> dict[str, Any]:
    """What every handshake records of its request: who asked whom and when, whether
    the request was read, and ``member``, whom the handshake is about."""
    return dict(
        kind=kind,
        request_id=request_id,
        member=member,
        requester=message.from_,
        answerer=recipient,
        requested_at=message.timestamp,
        request_read=message.read,
    )


def _shutdowns(ctx: Context, superseded: dict[str, TeamLogRecord]) -> list[Handshake]:
    replies: dict[str, InboxEntry] = {}
    for _recipient, entry in ctx.replies:
        if isinstance(entry.kind, (ShutdownApproved, ShutdownRejected)):
            replies[entry.kind.requestId] = entry
    result = []
    for recipient, request, message in ctx.requests_of(ShutdownRequest):
        reply = replies.get(request.requestId)
        base = _asked("shutdown", request.requestId, recipient, message, member=recipient)
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


def _plans(ctx: Context) -> list[Handshake]:
    responses: dict[str, tuple[str, InboxEntry]] = {}
    for recipient, entry in ctx.replies:
        if isinstance(entry.kind, PlanApprovalResponse):
            responses[entry.kind.requestId] = (recipient, entry)
    result = []
    for recipient, request, message in ctx.requests_of(PlanApprovalRequest):
        base = _asked("plan", request.requestId, recipient, message, member=message.from_)
        answer = responses.get(request.requestId)
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


def _permissions(ctx: Context) -> list[Handshake]:
    responses = {
        entry.kind.request_id: entry for _r, entry in ctx.replies if isinstance(entry.kind, PermissionResponse)
    }
    asked: dict[tuple[str, str], str] = {}  # (requester, tool_use_id) -> its newest request id
    for _recipient, request, message in ctx.requests_of(PermissionRequest):
        if request.tool_use_id:
            key = (message.from_.lower(), request.tool_use_id)
            newest = asked.get(key)
            if newest is None or not later(newest, message.timestamp):
                asked[key] = message.timestamp
    result = []
    for recipient, request, message in ctx.requests_of(PermissionRequest):
        base = _asked("permission", request.request_id, recipient, message, member=message.from_)
        what = f"{request.tool_name or 'a tool'}" + (f" ({request.description})" if request.description else "")
        answer = responses.get(request.request_id)
        retried = request.tool_use_id and later(
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


def _sandboxes(ctx: Context) -> list[Handshake]:
    """``sandbox_permission_request`` s: open until a ``sandbox_permission_response``
    with the same ``requestId`` (allow or deny), superseded when the worker is offline."""
    responses = {
        entry.kind.requestId: entry for _r, entry in ctx.replies if isinstance(entry.kind, SandboxPermissionResponse)
    }
    result = []
    for recipient, request, message in ctx.requests_of(SandboxPermissionRequest):
        base = _asked("sandbox", request.requestId, recipient, message, member=message.from_)
        host = request.hostPattern.host
        answer = responses.get(request.requestId)
        if answer is None:
            offline = ctx.is_offline(message.from_)
            result.append(
                Handshake(
                    **base,
                    state="superseded" if offline else "awaiting_decision",
                    detail=f"{message.from_}'s request to reach {host} is superseded: {message.from_} is offline"
                    if offline
                    else f"{message.from_} asks {recipient} to let its sandbox reach {host} since {message.timestamp}",
                )
            )
            continue
        assert isinstance(answer.kind, SandboxPermissionResponse) and answer.message is not None
        verdict = "allowed" if answer.kind.allow else "denied"
        result.append(
            Handshake(
                **base,
                state="answered",
                reply=answer.kind.KIND,
                replied_at=answer.message.timestamp,
                note=verdict,
                detail=f"{recipient} {verdict} {message.from_}'s sandbox access to {answer.kind.host}",
            )
        )
    return result


def orphan_replies(ctx: Context) -> list[Finding]:
    """``orphan_reply`` for each handshake reply whose request is in no inbox."""
    requested = {entry.kind.correlation_id for _r, entry in ctx.requests if isinstance(entry.kind, HANDSHAKE_REQUESTS)}
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
        and isinstance(entry.kind, HANDSHAKE_REPLIES)
        and entry.kind.correlation_id not in requested
    ]


def unread_after_idle(ctx: Context, completed_in_list: Callable[[], Mapping[str, str]]) -> list[Finding]:
    """Ordinary messages still unread although their recipient went idle after them
    (handshakes are classified on their own), each classified by what the recipient
    did afterwards.

    In Claude Code a teammate's first ``task_assignment`` also arrives in its spawn
    prompt, so its inbox copy can stay unread while the work gets done. Only a message
    after which the recipient did nothing but go idle is the failure ``not_injected``;
    one it demonstrably moved on from is a notice: ``unread_completed`` (the member
    completed the task the message assigned: its idle notification or the team's task
    list says so), ``unread_offline`` (it went offline since: the message no longer
    matters), ``unread_reported`` (it sent messages afterwards: it was working).

    Where the team's tool never wakes an inactive member with its inbox (Ripperdoc: a
    teammate whose run loop has ended), every ordinary message still unread in such a
    member's inbox is ``not_injected`` at once, idle or not: nothing will read it until
    the lead spawns the member again.

    Args:
        completed_in_list: task id → owner of each completed task of the team's task
            list, called only when a message needs it.
    """
    findings = []
    for recipient, fold in ctx.folds.items():
        for entry in fold.ordinary_unread:
            message, kind = entry.message, entry.kind
            assert message is not None and kind is not None
            if (
                ctx.config.member(recipient) is not None
                and ctx.is_offline(recipient)
                and not ctx.inbox_wakes_inactive()
            ):
                detail = (
                    f"{kind.KIND} from {message.from_} at {message.timestamp} is still unread and {recipient}'s "
                    f"run has ended: not injected until it is spawned again (its inbox does not wake it)"
                )
                findings.append(Finding("not_injected", detail, member=recipient))
                continue
            if not ctx.idle_after(recipient, message.timestamp):
                continue
            what = f"{kind.KIND} from {message.from_} at {message.timestamp} is still unread"
            task_id = kind.taskId if isinstance(kind, TaskAssignment) else None
            if task_id is not None and (
                task_id in ctx.completed.get(recipient.lower(), ())
                or (completed_in_list().get(task_id) or "").lower() == recipient.lower()
            ):
                code, detail = "unread_completed", f"{what}, but {recipient} completed task #{task_id} (nothing to do)"
            elif ctx.is_offline(recipient):
                code, detail = "unread_offline", f"{what}; {recipient} has gone offline since (nothing to do)"
            elif ctx.spoke_after(recipient, message.timestamp):
                code, detail = "unread_reported", f"{what}, but {recipient} has sent messages since (it was working)"
            else:
                code = "not_injected"
                detail = (
                    f"{what} although {recipient} went idle after it and has sent nothing since: "
                    f"send it again, or check that {recipient} reads its inbox"
                )
            findings.append(Finding(code, detail, member=recipient))
    return findings
