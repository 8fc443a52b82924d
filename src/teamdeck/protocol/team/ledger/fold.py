"""The incremental fold behind a team's ledger: what each inbox and the team's
messages.jsonl contribute, folded once and kept between builds.

A live view rebuilds a team's ledger on every change; folding only the inbox that
changed and only the log records appended since keeps that cost to the size of the
change, however many messages the team has exchanged. The per-recipient delivery
findings (``non_member``, ``not_enqueued``) are made here too because they are what
the fold caches: a recipient's are computed again only when what they depend on changed.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from teamdeck.formats.inboxes import Inbox, InboxEntry
from teamdeck.model.team import (
    IdleNotification,
    PermissionRequest,
    PermissionResponse,
    PlanApprovalRequest,
    PlanApprovalResponse,
    SandboxPermissionRequest,
    SandboxPermissionResponse,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownRequest,
    TaskCompleted,
    TeammateTerminated,
    Unknown,
)
from teamdeck.model.team_log import SEND_TYPES, TeamLogRecord
from teamdeck.protocol.team.ledger.moments import moment_of, newer
from teamdeck.protocol.team.ledger.results import Finding, IdleFold, TaskReport, Termination
from teamdeck.protocol.team.teamlog import TeamLog
from teamdeck.store.workspace import Workspace

HANDSHAKE_REQUESTS = (ShutdownRequest, PlanApprovalRequest, PermissionRequest, SandboxPermissionRequest)
"""The message kinds that open a handshake (an inbox fold keeps them as requests)."""
HANDSHAKE_REPLIES = (
    ShutdownApproved,
    ShutdownRejected,
    PlanApprovalResponse,
    PermissionResponse,
    SandboxPermissionResponse,
)
"""The message kinds that answer one (kept as replies)."""
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
    failure: str | None = None


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
        problems: one line per entry that is not a message or is a known frame out of its schema.
        present: ``(from, timestamp, text)`` of every message (what a logged send is
            looked up by).
        idle_latest: sender (lower-cased) → the newest readable time it reported idle.
        idles: sender (as written) → its idle notifications here.
        spoke: sender (lower-cased) → the newest readable time it sent anything else.
        completed: sender (lower-cased) → the task ids its idle notifications
            (``completedTaskId``) or ``task_completed`` frames say it completed.
        reports: the ``task_completed`` frames, in file order.
        bad_frames: ``(entry index, type, why)`` of each known frame whose fields do not
            fit its schema (it is shown raw), in file order.
        terminations: the ``teammate_terminated`` frames, in file order.
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
    completed: dict[str, frozenset[str]]
    reports: tuple[TaskReport, ...] = ()
    terminations: tuple[Termination, ...] = ()
    bad_frames: tuple[tuple[int, str, str], ...] = ()

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
        completed: dict[str, frozenset[str]] = {}
        reports: list[TaskReport] = []
        terminations: list[Termination] = []
        bad_frames: list[tuple[int, str, str]] = []
        messages = unread = 0
        if earlier is not None and inbox.extends(earlier.inbox):
            start = len(earlier.inbox.entries)
            requests, replies = list(earlier.requests), list(earlier.replies)
            ordinary, problems, present = list(earlier.ordinary_unread), list(earlier.problems), set(earlier.present)
            idle_latest, idles, spoke = dict(earlier.idle_latest), dict(earlier.idles), dict(earlier.spoke)
            completed = dict(earlier.completed)
            reports, terminations = list(earlier.reports), list(earlier.terminations)
            bad_frames = list(earlier.bad_frames)
            messages, unread = earlier.messages, earlier.unread
        for entry in inbox.entries[start:]:
            message, kind = entry.message, entry.kind
            if entry.problem:
                problems.append(entry.problem)
            if message is None or kind is None:
                continue
            messages += 1
            unread += not message.read
            if isinstance(kind, Unknown) and kind.problem:  # a known frame that does not fit its schema
                problems.append(f"entry {entry.index}: {kind.type} frame does not fit its schema: {kind.problem}")
                bad_frames.append((entry.index, kind.type, kind.problem))
            present.add((message.from_, message.timestamp, message.text))
            if isinstance(kind, HANDSHAKE_REQUESTS):
                requests.append(entry)
            elif isinstance(kind, HANDSHAKE_REPLIES):
                replies.append(entry)
            if not message.read and not isinstance(kind, _NOT_ORDINARY):
                ordinary.append(entry)
            if isinstance(kind, IdleNotification):
                who = kind.from_ or message.from_
                at = kind.timestamp or message.timestamp
                moment = moment_of(at)
                if moment is not None:
                    idle_latest[who.lower()] = newer(idle_latest.get(who.lower()), moment) or moment
                failure = (kind.failureReason or "failed") if kind.failed else None
                idles[who] = _count_idle(idles.get(who), _IdleTally(1, moment, at, kind.idleReason, failure))
                if kind.completedTaskId and kind.completedStatus in (None, "resolved"):
                    completed[who.lower()] = completed.get(who.lower(), frozenset()) | {kind.completedTaskId}
                continue
            if isinstance(kind, TaskCompleted):
                who = kind.from_ or message.from_
                reports.append(TaskReport(who, kind.taskId, kind.taskSubject, kind.timestamp or message.timestamp))
                completed[who.lower()] = completed.get(who.lower(), frozenset()) | {kind.taskId}
            elif isinstance(kind, TeammateTerminated) and kind.member:
                terminations.append(Termination(kind.member, kind.message, message.timestamp))
            moment = moment_of(message.timestamp)
            if moment is not None:
                spoke[message.from_.lower()] = newer(spoke.get(message.from_.lower()), moment) or moment
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
            completed,
            tuple(reports),
            tuple(terminations),
            tuple(bad_frames),
        )


def _count_idle(before: _IdleTally | None, after: _IdleTally) -> _IdleTally:
    """Two tallies of the same sender, ``after`` later in file order, as one."""
    if before is None:
        return after
    newest = after
    if before.moment is not None and (after.moment is None or before.moment > after.moment):
        newest = before
    return _IdleTally(before.count + after.count, newest.moment, newest.at, newest.reason, newest.failure)


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
    """A team's ledger state kept between builds (:func:`~.build.build_ledger`): each
    inbox folded once per read (:class:`InboxFold`), the
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
        self._sent: tuple[tuple[int, int], frozenset[tuple[str, str, str]]] = ((0, 0), frozenset())

    def inbox(self, inbox: Inbox) -> InboxFold:
        """The fold of ``inbox``, made again only if this is another read of it (and
        then from the earlier fold when the inbox only grew)."""
        fold = self._inboxes.get(inbox.recipient)
        if fold is None or fold.inbox is not inbox:
            fold = self._inboxes[inbox.recipient] = InboxFold.of(inbox, fold)
        return fold

    def logged_sends(self) -> frozenset[tuple[str, str, str]]:
        """``(sender, recipient, timestamp)``, lower-cased, of every send the log held
        when it was last folded: the identity of their inbox copies. The same object
        until the log grows, so what is derived from it is not made again."""
        log = self._log
        if self._sent[0] != (log.generation, log.taken):
            sent = frozenset(
                ((record.from_ or "").lower(), recipient.lower(), record.timestamp or "")
                for recipient, sends in log.sends.items()
                for _number, _position, record in sends
            )
            self._sent = ((log.generation, log.taken), sent)
        return self._sent[1]

    def log(self) -> tuple[_LogFold, list[str]]:
        """The log folded up to its end, and one line per bad record."""
        records, bad = self.reader.read()
        if self.reader.generation != self._log.generation or len(records) < self._log.taken:
            self._log = _LogFold(generation=self.reader.generation)
            self._delivery.clear()
        for record in records[self._log.taken :]:
            self._log.add(record)
        return self._log, bad

    def deliveries(
        self,
        log: _LogFold,
        folds: dict[str, InboxFold],
        is_member: Callable[[str], bool],
        unreadable: Container[str],
    ) -> list[Finding]:
        """``non_member`` and ``not_enqueued`` findings of every logged send, in log
        order; a recipient's are computed again only when what they depend on changed.

        Args:
            log: the log as :meth:`log` folded it.
            folds: recipient → the fold of its inbox as this build read it.
            is_member: whether a name is the lead or on the roster.
            unreadable: the recipients whose inbox could not be read.
        """
        keyed: list[tuple[int, int, int, Finding]] = []
        for recipient, sends in log.sends.items():
            fold = folds.get(recipient)
            member, lost = is_member(recipient), recipient in unreadable
            key = (log.versions.get(recipient), member, lost)
            cached = self._delivery.get(recipient)
            if cached is None or cached[0] is not fold or cached[1] != key:
                found = _delivery_findings(log, recipient, sends, fold, member=member, unreadable=lost)
                cached = self._delivery[recipient] = (fold, key, found)
            keyed += cached[2]
        for gone in set(self._delivery) - set(log.sends):
            del self._delivery[gone]
        keyed.sort(key=lambda item: item[:3])
        return [finding for *_order, finding in keyed]


def _delivery_findings(
    log: _LogFold,
    recipient: str,
    sends: list[tuple[int, int, TeamLogRecord]],
    fold: InboxFold | None,
    *,
    member: bool,
    unreadable: bool,
) -> list[tuple[int, int, int, Finding]]:
    """The findings of the sends logged to ``recipient`` (a ``member`` of the team or
    not; its inbox ``unreadable`` or not), each with its place in the log (record
    number, position in ``to``, then non-member before not-enqueued)."""
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


def idle_folds(folds: Iterable[InboxFold]) -> dict[str, IdleFold]:
    """Each sender's idle notifications over the inboxes ``folds`` folded: how many,
    the newest (the greatest readable timestamp; on a tie the later inbox, then the
    later entry), and whether it is still idle (it sent nothing else after that)."""
    tallies: dict[str, _IdleTally] = {}
    spoke: dict[str, datetime] = {}
    for fold in folds:
        for who, tally in fold.idles.items():
            tallies[who] = _count_idle(tallies.get(who), tally)
        for sender, moment in fold.spoke.items():
            spoke[sender] = newer(spoke.get(sender), moment) or moment
    result = {}
    for who, tally in sorted(tallies.items()):
        other = spoke.get(who.lower())
        still = not (other is not None and tally.moment is not None and other > tally.moment)
        result[who] = IdleFold(who, tally.count, tally.reason, tally.at, tally.at if still else None, tally.failure)
    return result
