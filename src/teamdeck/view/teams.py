"""Reading a Claude Code team into a :class:`TeamView`: roster, inboxes folded, and
each member's derived status (snapshot.py, :data:`MemberStatus`).

What was read is kept as a :class:`TeamFiles` between refreshes, so a change to one
inbox re-reads that inbox alone (taking over its unchanged entries) and turns only it
into rows again. Handshakes (shutdown, plan approval, permission), idle folds and
delivery failures come from the team's ledger (protocol/ledger/), built again
whenever any file of the team changed - a member's status depends on what it sent to
others as much as on what it received - from the ledger state the files keep, which
folds only the inbox that changed and the log records appended since.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import NamedTuple, TypeVar

from teamdeck.clock import iso, parse_iso
from teamdeck.errors import NotFound, TeamdeckError
from teamdeck.model.claude import (
    IdleNotification,
    Kind,
    PermissionRequest,
    PermissionResponse,
    Plain,
    PlanApprovalRequest,
    PlanApprovalResponse,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownRequest,
    TaskAssignment,
    TeamConfig,
    Unknown,
)
from teamdeck.model.connection import STALE_S, Connection
from teamdeck.protocol.inboxes import TeamInboxes, read_inboxes
from teamdeck.protocol.ledger.build import build_ledger
from teamdeck.protocol.ledger.fold import LedgerFold
from teamdeck.protocol.ledger.results import DEFAULT_SHUTDOWN_TIMEOUT, FAILURE_CLASSES, Handshake, Ledger
from teamdeck.protocol.observed import Observed
from teamdeck.store.connections import read_connections
from teamdeck.store.inbox import Inbox, UnreadableInbox, recipient_of
from teamdeck.store.loaders import dumps_json
from teamdeck.store.teamfiles import read_team_config
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot import Decision, MemberStatus, MemberView, MessageView, Problem, TeamView

RequestKind = TypeVar("RequestKind", bound=Kind)


@dataclass(frozen=True)
class TeamFiles:
    """What was read of one team.

    Attributes:
        name: the team (its directory name).
        config: config.json, or None when it could not be read (``problem`` says why).
        problem: why config.json could not be read (the previous roster is kept).
        inboxes: every inbox as protocol/inboxes.py reads them (readable ones, the
            unreadable ones with their problem, ignored file names).
        ledger: the team's handshake ledger (protocol/ledger/build.py), or None when
            config.json cannot be read.
        fold: the team's ledger state (protocol/ledger/fold.py), shared by every later
            version of these files: the next ledger folds only the inboxes read
            since and the log records appended since.
        rows: recipient → the inbox it was made from, its rows (:func:`fold_inbox`)
            and when each name last sent or received in it; shared like ``fold``,
            so an inbox is turned into rows once per read.
        observed: the team's record of every inbox message seen (protocol/observed.py),
            shared like ``fold``: inboxes are read through it, so what Claude Code
            drained stays.
        connections: member name → the heartbeat of an MCP server acting as it
            (``connections/<member>.json``), and the heartbeat files that could not be read.
        shutdown_timeout: how long a shutdown request waits before the ledger calls
            it overdue (the workspace setting).
    """

    name: str
    config: TeamConfig | None
    problem: Problem | None = None
    inboxes: TeamInboxes = field(default_factory=TeamInboxes)
    ledger: Ledger | None = None
    fold: LedgerFold | None = field(default=None, compare=False, repr=False)
    rows: dict[str, InboxRows] = field(default_factory=dict, compare=False, repr=False)
    observed: Observed | None = field(default=None, compare=False, repr=False)
    connections: dict[str, Connection] = field(default_factory=dict)
    connection_problems: tuple[str, ...] = ()
    shutdown_timeout: timedelta = DEFAULT_SHUTDOWN_TIMEOUT

    def inbox_of(self, name: str) -> Inbox | str | None:
        """A member's inbox, or the line saying why it is unreadable (any case)."""
        for recipient, inbox in self.inboxes.inboxes.items():
            if recipient.lower() == name.lower():
                return inbox
        for recipient, problem in self.inboxes.unreadable.items():
            if recipient.lower() == name.lower():
                return problem
        return None


def read_team_files(
    ws: Workspace,
    team: str,
    previous: TeamFiles | None = None,
    shutdown_timeout: timedelta | None = None,
    *,
    record: bool = False,
) -> TeamFiles | None:
    """Read a team's config.json, every inbox and its ledger.

    Args:
        ws: the workspace.
        team: a valid team name.
        previous: what was read before; a config.json that is now unreadable keeps the
            previous roster (and carries the problem).
        shutdown_timeout: the shutdown timeout (default: the previous one's, else 2 min).
        record: record every inbox message read (the live view; protocol/observed.py).

    Returns:
        The files, or None when the team is gone.
    """
    if not ws.team_config(team).exists():
        return None
    fold = previous.fold if previous is not None and previous.fold is not None else LedgerFold(ws, team)
    rows = previous.rows if previous is not None else {}
    observed = previous.observed if previous is not None and previous.observed is not None else None
    observed = observed or Observed(ws, team, record=record)
    if shutdown_timeout is None:
        shutdown_timeout = previous.shutdown_timeout if previous is not None else DEFAULT_SHUTDOWN_TIMEOUT
    inboxes = read_inboxes(ws, team, observed)
    files = TeamFiles(
        team, None, None, inboxes, fold=fold, rows=rows, observed=observed, shutdown_timeout=shutdown_timeout
    )
    files = reread_connections(ws, with_ledger(ws, files))
    if files.ledger is not None:
        return files
    config, problem = _read_config(ws, team, previous)  # the ledger could not read it: say why
    if config is None and problem is None:
        return None
    return replace(files, config=config, problem=problem)


def reread_config(ws: Workspace, files: TeamFiles) -> TeamFiles | None:
    """``files`` with config.json read again (None when the team is gone); call
    :func:`with_ledger` once every changed part is read."""
    config, problem = _read_config(ws, files.name, files)
    if config is None and problem is None:
        return None
    return replace(files, config=config, problem=problem)


def reread_inbox(ws: Workspace, files: TeamFiles, path: Path) -> TeamFiles:
    """``files`` with the inbox at ``path`` read again (dropped when it is gone); call
    :func:`with_ledger` once every changed part is read."""
    recipient = recipient_of(path)
    inboxes = TeamInboxes(dict(files.inboxes.inboxes), dict(files.inboxes.unreadable), list(files.inboxes.ignored))
    inboxes.inboxes.pop(recipient, None)
    inboxes.unreadable.pop(recipient, None)
    observed = files.observed if files.observed is not None else Observed(ws, files.name)
    try:
        inboxes.inboxes[recipient] = observed.read(path)
    except FileNotFoundError:
        pass
    except UnreadableInbox as err:
        inboxes.unreadable[recipient] = str(err)
    else:
        if not path.exists():  # a missing file reads as an empty inbox: it was removed
            del inboxes.inboxes[recipient]
    inboxes.inboxes = dict(sorted(inboxes.inboxes.items()))
    inboxes.unreadable = dict(sorted(inboxes.unreadable.items()))  # in file order, as a full read has them
    return replace(files, inboxes=inboxes)


def reread_connections(ws: Workspace, files: TeamFiles) -> TeamFiles:
    """``files`` with the team's MCP heartbeats read again."""
    connections, problems = read_connections(ws, files.name)
    return replace(files, connections=connections, connection_problems=tuple(problems))


def connected(files: TeamFiles, member: str, now: datetime | None) -> str:
    """Where an MCP server acting as ``member`` serves (its URL), or ``""`` when none
    has a heartbeat newer than :data:`STALE_S` seconds at ``now`` (None: any heartbeat)."""
    found = next((conn for name, conn in files.connections.items() if name.lower() == member.lower()), None)
    if found is None:
        return ""
    beat = _moment(found.beatAt)
    if now is not None and (beat is None or (now - beat).total_seconds() > STALE_S):
        return ""
    return found.url


def with_ledger(ws: Workspace, files: TeamFiles) -> TeamFiles:
    """``files`` with the team's ledger built again from the inboxes already read
    (None when config.json is unreadable; ``config`` and ``problem`` then stay).

    A config.json read without a problem is used as it is: the watcher reports every
    change of it, and :func:`reread_config` reads it then (reading it again for each
    inbox change was a quarter of the refresh). One that could not be read is tried
    again here."""
    config = files.config if files.problem is None else None
    try:
        ledger = build_ledger(
            ws,
            files.name,
            config=config,
            inboxes=files.inboxes,
            fold=files.fold,
            shutdown_timeout=files.shutdown_timeout,
        )
    except TeamdeckError:
        return replace(files, ledger=None)
    return replace(files, ledger=ledger, config=ledger.config, problem=None)


def _read_config(ws: Workspace, team: str, previous: TeamFiles | None) -> tuple[TeamConfig | None, Problem | None]:
    try:
        return read_team_config(ws, team), None
    except NotFound:
        return None, None
    except TeamdeckError as err:
        kept = previous.config if previous is not None else None
        return kept, Problem.of(err, str(ws.rel(ws.team_config(team))))


def inbox_problems(ws: Workspace, files: TeamFiles) -> list[Problem]:
    """The team's unreadable inboxes, ignored inbox files and unreadable MCP heartbeats,
    as problems."""
    problems = [
        Problem(str(ws.rel(ws.inboxes_dir(files.name) / f"{recipient}.json")), "", why)
        for recipient, why in files.inboxes.unreadable.items()
    ]
    problems += [Problem(str(ws.rel(ws.inboxes_dir(files.name))), "", line) for line in files.inboxes.ignored]
    return problems + [
        Problem(str(ws.rel(ws.connections_dir(files.name))), "", line) for line in files.connection_problems
    ]


# --- deriving what the roster shows -------------------------------------------------


def _moment(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return parse_iso(text)
    except (ValueError, TypeError):
        return None


@dataclass(frozen=True)
class InboxRows:
    """One inbox as the roster shows it, made once per read of the inbox.

    Attributes:
        inbox: the inbox these were made from.
        rows: its messages as rows (:func:`fold_inbox`).
        activity: name (lower-cased) → the newest message it sent or received here.
        unread: how many of its messages are unread.
    """

    inbox: Inbox
    rows: tuple[MessageView, ...]
    activity: dict[str, datetime]
    unread: int

    @classmethod
    def of(cls, inbox: Inbox, earlier: InboxRows | None = None) -> InboxRows:
        """The rows of ``inbox``; when it extends the inbox ``earlier`` was made from,
        only the entries after those are turned into rows."""
        start, unread = 0, 0
        rows: tuple[MessageView, ...] = ()
        newest: dict[str, datetime] = {}
        if earlier is not None and inbox.extends(earlier.inbox):
            start, rows, unread = len(earlier.inbox.entries), earlier.rows, earlier.unread
            newest = dict(earlier.activity)
        for entry in inbox.entries[start:]:
            if entry.message is None:
                continue
            unread += not entry.message.read
            when = _moment(entry.message.timestamp)
            if when is None:
                continue
            for name in (inbox.recipient, entry.message.from_):
                key = name.lower()
                if key not in newest or when > newest[key]:
                    newest[key] = when
        return cls(inbox, fold_inbox(inbox, start, rows), newest, unread)


def inbox_rows(files: TeamFiles, inbox: Inbox) -> InboxRows:
    """The rows of ``inbox``, made again only if this is another read of it (and
    then from the earlier rows when the inbox only grew)."""
    made = files.rows.get(inbox.recipient)
    if made is None or made.inbox is not inbox:
        made = files.rows[inbox.recipient] = InboxRows.of(inbox, made)
    return made


def _last_activity(files: TeamFiles) -> dict[str, datetime]:
    """Per member (lower-cased), the newest message it sent or received."""
    newest: dict[str, datetime] = {}
    for inbox in files.inboxes.inboxes.values():
        for key, when in inbox_rows(files, inbox).activity.items():
            if key not in newest or when > newest[key]:
                newest[key] = when
    return newest


def team_view(
    files: TeamFiles, waiting_on_gates: frozenset[str] = frozenset(), now: datetime | None = None
) -> TeamView:
    """The team as the roster shows it.

    Args:
        files: what was read (with the team's ledger).
        waiting_on_gates: lower-cased names of members whose worker waits on an open
            task gate (they are ``awaiting``).
        now: the time heartbeats are judged fresh at (None: every heartbeat counts).
    """
    config = files.config
    activity = _last_activity(files)
    members = []
    for member in config.members if config is not None else []:
        inbox = files.inbox_of(member.name)
        key = member.name.lower()
        rows = inbox_rows(files, inbox) if isinstance(inbox, Inbox) else None
        status = _status(key, member.isActive, files.ledger, key in waiting_on_gates)
        members.append(
            MemberView(
                team=files.name,
                name=member.name,
                agent_type=member.agentType,
                model=member.model,
                color=member.color,
                lead=config is not None and config.is_lead(member.name),
                active=member.isActive,
                status=status.status,
                since=status.since,
                detail=status.detail,
                unread=rows.unread if rows is not None else 0,
                last_activity=iso(activity[key]) if key in activity else "",
                markers=status.markers,
                inbox=rows.rows if rows is not None else (),
                inbox_problem=Problem(f"teams/{files.name}/inboxes/{member.name}.json", "", inbox)
                if isinstance(inbox, str)
                else None,
                pending_shutdown=status.pending_shutdown,
                pending_plan=status.pending_plan,
                connected=connected(files, member.name, now),
            )
        )
    markers = (
        tuple(
            f"{FAILURE_CLASSES[finding.code]}: {finding.detail}"
            for finding in files.ledger.failures
            if finding.member is None
        )
        if files.ledger
        else ()
    )
    return TeamView(
        name=files.name,
        description=(config.description or "") if config else "",
        lead=config.lead_name if config is not None else "team-lead",
        members=tuple(members),
        problem=files.problem,
        markers=markers,
    )


def _handshakes(ledger: Ledger | None, kind: str, member: str) -> list[Handshake]:
    if ledger is None:
        return []
    return [
        handshake for handshake in ledger.handshakes if handshake.kind == kind and handshake.member.lower() == member
    ]


class _Status(NamedTuple):
    """A member's status and what goes with it, from the team's ledger."""

    status: MemberStatus
    since: str
    detail: str
    markers: tuple[str, ...]
    pending_shutdown: str | None
    pending_plan: str | None


def _status(key: str, active: bool, ledger: Ledger | None, on_gate: bool) -> _Status:
    """The status of the member ``key`` (lower-cased), its since, detail and markers."""
    shutdowns = _handshakes(ledger, "shutdown", key)
    shutdown = shutdowns[-1] if shutdowns else None
    plans = [handshake for handshake in _handshakes(ledger, "plan", key) if handshake.state == "awaiting_decision"]
    idle = next((fold for name, fold in ledger.idles.items() if name.lower() == key), None) if ledger else None

    status: MemberStatus = "working"
    since, detail = "", ""
    if not active:
        status = "offline"
        if shutdown is not None and shutdown.replied_at:
            since = shutdown.replied_at
    elif shutdown is not None and shutdown.state == "approved":
        status, since, detail = "shutdown-approved", shutdown.replied_at or "", shutdown.detail
    elif shutdown is not None and shutdown.state == "awaiting_response" and shutdown.overdue:
        status, since = "shutdown-stuck", shutdown.requested_at
        detail = f"awaiting shutdown_response since {shutdown.requested_at}: resend or force (Decisions)"
    elif shutdown is not None and shutdown.state == "awaiting_response":
        status, since, detail = "shutdown-requested", shutdown.requested_at, shutdown.detail
    elif plans or on_gate:
        status = "awaiting"
        since = plans[-1].requested_at if plans else ""
        detail = "plan approval requested" if plans else "a task gate waits for a decision"
    elif idle is not None and idle.idle_since:
        status, since = "idle", idle.idle_since
        detail = f"{idle.last_reason or 'available'} ({idle.count} idle notification{'s' if idle.count != 1 else ''})"
    if shutdown is not None and shutdown.state == "rejected" and not detail:
        detail = shutdown.detail
    failures = [finding for finding in ledger.failures if (finding.member or "").lower() == key] if ledger else []
    return _Status(
        status,
        since,
        detail,
        tuple(f"{FAILURE_CLASSES[finding.code]}: {finding.detail}" for finding in failures),
        shutdown.request_id if status in ("shutdown-requested", "shutdown-stuck") and shutdown else None,
        plans[-1].request_id if plans else None,
    )


def team_gates(files: TeamFiles, team: TeamView) -> list[Decision]:
    """Every decision the team waits for: plan approvals, permission requests and
    stuck shutdowns (the caller sorts the whole queue, oldest first)."""
    return pending_plan_gates(files, team) + pending_permission_gates(files) + stuck_shutdown_gates(files)


def pending_plan_gates(files: TeamFiles, team: TeamView) -> list[Decision]:
    """The team's unanswered plan approval requests as gates, one per request."""
    if files.ledger is None:
        return []
    gates = []
    for handshake in files.ledger.handshakes:
        if handshake.kind != "plan" or handshake.state != "awaiting_decision":
            continue
        request = _find_request(files, handshake, PlanApprovalRequest)
        gates.append(
            Decision(
                key=f"plan:{files.name}:{handshake.member}:{handshake.request_id}",
                kind="plan-approval",
                state="blocked",
                created_at=handshake.requested_at,
                source=f"team {files.name}",
                title=f"plan approval requested by {handshake.member}",
                reason=(request.planFilePath or "") if request else "",
                agent=handshake.member,
                body=(request.planContent or "") if request else "",
                team=files.name,
                member=handshake.member,
                request_id=handshake.request_id,
            )
        )
    return gates


def pending_permission_gates(files: TeamFiles) -> list[Decision]:
    """The team's open permission requests as gates: the tool, what it is for, and its
    input (raw here; fronts sanitise)."""
    if files.ledger is None:
        return []
    gates = []
    for handshake in files.ledger.handshakes:
        if handshake.kind != "permission" or handshake.state != "awaiting_decision":
            continue
        request = _find_request(files, handshake, PermissionRequest)
        tool = (request.tool_name if request else None) or "a tool"
        gates.append(
            Decision(
                key=f"permission:{files.name}:{handshake.member}:{handshake.request_id}",
                kind="permission",
                state="blocked",
                created_at=handshake.requested_at,
                source=f"team {files.name}",
                title=f"{handshake.member} asks to use {tool}"
                + (f": {request.description}" if request and request.description else ""),
                tool=tool,
                reason=(request.description or "") if request else "",
                agent=handshake.member,
                body=_raw(request.input) if request else "",
                team=files.name,
                member=handshake.member,
                request_id=handshake.request_id,
            )
        )
    return gates


def stuck_shutdown_gates(files: TeamFiles) -> list[Decision]:
    """Shutdown requests that waited past the timeout with no reply, as gates whose
    two answers are "resend" and "force offline"."""
    if files.ledger is None:
        return []
    return [
        Decision(
            key=f"shutdown:{files.name}:{handshake.member}:{handshake.request_id}",
            kind="shutdown-stuck",
            state="blocked",
            created_at=handshake.requested_at,
            source=f"team {files.name}",
            title=f"awaiting shutdown_response since {handshake.requested_at}",
            reason=handshake.detail,
            agent=handshake.member,
            team=files.name,
            member=handshake.member,
            request_id=handshake.request_id,
        )
        for handshake in files.ledger.handshakes
        if handshake.kind == "shutdown" and handshake.state == "awaiting_response" and handshake.overdue
    ]


def _find_request(files: TeamFiles, handshake: Handshake, kind: type[RequestKind]) -> RequestKind | None:
    """The request a handshake is about, from the answerer's inbox."""
    inbox = files.inbox_of(handshake.answerer)
    if not isinstance(inbox, Inbox):
        return None
    for entry in inbox.messages:
        if isinstance(entry.kind, kind) and entry.kind.correlation_id == handshake.request_id:
            return entry.kind
    return None


# --- the inbox as a list ------------------------------------------------------------


def fold_inbox(inbox: Inbox, start: int = 0, before: tuple[MessageView, ...] = ()) -> tuple[MessageView, ...]:
    """An inbox oldest first, each entry decoded; consecutive idle notifications from
    the same sender become one row that counts them and keeps them one by one in
    ``folded`` (FORMAT.md: a view must fold them; a front may expand the fold).

    Args:
        inbox: the inbox.
        start, before: go on from ``before``, the rows of the inbox's first ``start``
            entries (an inbox that only grew is folded from where it was).
    """
    rows: list[MessageView] = list(before)
    folds: dict[int, list[MessageView]] = {}  # row position -> the idle notifications it folds
    if rows and rows[-1].folded:  # the last row's fold may take in the next notification
        folds[len(rows) - 1] = list(rows[-1].folded)
    for entry in inbox.entries[start:]:
        message, kind = entry.message, entry.kind
        if message is None or kind is None:
            rows.append(
                MessageView(
                    index=entry.index,
                    kind="invalid",
                    sender="",
                    timestamp="",
                    summary=entry.problem or "not a message",
                    raw=_raw(entry.raw),
                )
            )
            continue
        if isinstance(kind, IdleNotification):
            one = MessageView(
                index=entry.index,
                kind="idle",
                sender=message.from_,
                timestamp=message.timestamp,
                summary=idle_detail(kind),
                read=message.read,
                raw=message.text,
            )
            last = rows[-1] if rows else None
            if last is not None and last.kind == "idle" and last.sender == message.from_:
                rows[-1] = replace(
                    last,
                    count=last.count + 1,
                    timestamp=one.timestamp,
                    read=last.read and one.read,
                    summary=one.summary,
                    raw=one.raw,
                )
                folds.setdefault(len(rows) - 1, [last]).append(one)
                continue
            rows.append(one)
            continue
        summary, text = describe(kind, message.summary)
        rows.append(
            MessageView(
                index=entry.index,
                kind=kind.KIND,
                sender=message.from_,
                timestamp=message.timestamp,
                summary=summary,
                text=text,
                read=message.read,
                request_id=kind.correlation_id,
                raw=message.text,
            )
        )
    for position, folded in folds.items():
        rows[position] = replace(rows[position], folded=tuple(folded))
    return tuple(rows)


def idle_detail(kind: IdleNotification) -> str:
    """An idle notification in one line: reason, then what it finished or why it failed."""
    parts = [part for part in (kind.failureReason, kind.summary) if part]
    if kind.completedTaskId:
        parts.insert(0, f"task #{kind.completedTaskId} {kind.completedStatus or 'completed'}")
    reason = kind.idleReason or "available"
    return f"idle ({reason})" + (": " + "; ".join(parts) if parts else "")


def describe(kind: Kind, summary: str | None = None) -> tuple[str, str]:
    """A one-line summary and the full body of a decoded message, by kind."""
    if isinstance(kind, Plain):
        first = kind.text.strip().splitlines()[0] if kind.text.strip() else ""
        return summary or first, kind.text
    if isinstance(kind, TaskAssignment):
        return f"task #{kind.taskId}: {kind.subject or ''}".strip(), kind.description or ""
    if isinstance(kind, ShutdownRequest):
        return "shutdown requested" + (f": {kind.reason}" if kind.reason else ""), kind.reason or ""
    if isinstance(kind, ShutdownApproved):
        return "shutdown approved", ""
    if isinstance(kind, ShutdownRejected):
        return f"shutdown rejected: {kind.reason or 'no reason given'}", kind.reason or ""
    if isinstance(kind, PlanApprovalRequest):
        where = f" ({kind.planFilePath})" if kind.planFilePath else ""
        return f"plan approval requested{where}", kind.planContent or ""
    if isinstance(kind, PlanApprovalResponse):
        verdict = "plan approved" if kind.approved else "plan rejected"
        return verdict + (f": {kind.feedback}" if kind.feedback else ""), kind.feedback or ""
    if isinstance(kind, PermissionRequest):
        what = f"{kind.tool_name or 'a tool'}" + (f": {kind.description}" if kind.description else "")
        return f"permission requested: {what}", _raw(kind.input)
    if isinstance(kind, PermissionResponse):
        return f"permission response: {kind.subtype or '?'}", _raw(
            kind.response if kind.response is not None else kind.error
        )
    if isinstance(kind, Unknown):
        why = f" ({kind.problem})" if kind.problem else ""
        return f"{kind.type} message{why}", _raw(kind.raw)
    return kind.KIND, _raw(kind.to_payload())


def _raw(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return dumps_json(value, indent=2)
    except (TypeError, ValueError):
        return repr(value)
