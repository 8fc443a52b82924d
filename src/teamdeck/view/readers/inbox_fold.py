"""A team member's inbox as a list of rows (:class:`MessageView`), oldest first: each
entry decoded and described in one line, consecutive idle notifications from one
sender folded into one row. :class:`InboxRows` keeps the rows of one read of an inbox,
so an inbox that only grew is folded from where it was. Shared by the roster
(team_roster.py), the decisions (team_decisions.py) and the Events timeline."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from teamdeck.formats.inboxes import Inbox
from teamdeck.model.team import (
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
    Unknown,
)
from teamdeck.protocol.team.ledger.moments import moment_of
from teamdeck.store.loaders import dumps_json
from teamdeck.view.readers.frames import describe_frame
from teamdeck.view.snapshot.workspace import MessageView


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
            when = moment_of(entry.message.timestamp)
            if when is None:
                continue
            for name in (inbox.recipient, entry.message.from_):
                key = name.lower()
                if key not in newest or when > newest[key]:
                    newest[key] = when
        return cls(inbox, fold_inbox(inbox, start, rows), newest, unread)


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
                    raw=raw_text(entry.raw),
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
                text=kind.result or "",
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
                    text=one.text,
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
    if (newer := describe_frame(kind)) is not None:
        return newer
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
        return f"permission requested: {what}", raw_text(kind.input)
    if isinstance(kind, PermissionResponse):
        return f"permission response: {kind.subtype or '?'}", raw_text(
            kind.response if kind.response is not None else kind.error
        )
    if isinstance(kind, Unknown):
        why = f" ({kind.problem})" if kind.problem else ""
        return f"{kind.type} message{why}", raw_text(kind.raw)
    return kind.KIND, raw_text(kind.to_payload())


def raw_text(value: object) -> str:
    """A message body or input as the detail shows it: a string as it is, anything else
    as indented JSON (its ``repr`` when it is not JSON)."""
    if isinstance(value, str):
        return value
    try:
        return dumps_json(value, indent=2)
    except (TypeError, ValueError):
        return repr(value)
