"""A member's conversation: what it received *and* what it sent, from every inbox of
its team plus teamdeck's ``messages.jsonl`` (seed 002's ``read_agent_conversation``).

An inbox holds only what a member received, so what a member sent is found in the
other members' inboxes (``from``). A message teamdeck sent is also in messages.jsonl,
where it stays even if Claude Code rewrites or clears the inbox; an inbox entry and its
log record are the same message when ``from``, ``timestamp`` and ``text`` match (model/
team_log.py), so each message is one row, with every recipient. Consecutive idle
notifications from the same sender fold into one row that counts them.

Rows are oldest first and numbered; a page is the ``limit`` rows before a row number
(``before``), so an agent reads newest last and pages back. Pure reading.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from teamdeck.errors import Refused
from teamdeck.model.team import decode_text
from teamdeck.model.team_log import SEND_TYPES
from teamdeck.protocol.team.inboxes import read_inboxes
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.teamlog import read_log
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.workspace import Workspace

TEXT_CHARS = 20_000
"""A row's text is cut to this many characters (``truncated`` says so): one huge
message must not make a page unreadable."""
MAX_LIMIT = 500
IDLE = "idle_notification"


@dataclass(frozen=True)
class ConversationRow:
    """One message of the conversation (or a fold of idle notifications).

    Attributes:
        index: its number, oldest first (the cursor for ``before``).
        direction: ``sent`` (the member wrote it) or ``received``.
        sender: ``from``.
        recipients: who it went to (canonical names, as far as known).
        timestamp: the inbox entry's timestamp (a fold: the last one's).
        kind: the message kind (``plain``, ``task_assignment``, ``idle_notification``...).
        summary: the message summary, if any.
        text: the message text, cut to :data:`TEXT_CHARS`.
        truncated: the text was cut.
        request_id: the handshake id, for requests and replies.
        read: every recipient's copy that is in an inbox is marked read.
        delivered: it is in at least one inbox (False: only messages.jsonl has it).
        count: how many idle notifications a fold stands for (1 otherwise).
    """

    index: int
    direction: str
    sender: str
    recipients: tuple[str, ...]
    timestamp: str
    kind: str
    summary: str | None
    text: str
    truncated: bool
    request_id: str | None
    read: bool
    delivered: bool
    count: int = 1

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "direction": self.direction,
            "from": self.sender,
            "to": list(self.recipients),
            "timestamp": self.timestamp,
            "type": self.kind,
            "summary": self.summary,
            "text": self.text,
            "truncated": self.truncated,
            "requestId": self.request_id,
            "read": self.read,
            "delivered": self.delivered,
            "count": self.count,
        }


@dataclass(frozen=True)
class Conversation:
    """A page of a member's conversation.

    Attributes:
        team, member: whose conversation (canonical name).
        rows: the page, oldest first.
        total: how many rows the whole conversation has.
        before: the cursor for the previous page (None: this page starts at the beginning).
        problems: inboxes or log records that could not be read (the rest still counts).
    """

    team: str
    member: str
    rows: tuple[ConversationRow, ...]
    total: int
    before: int | None
    problems: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "member": self.member,
            "messages": [row.to_json() for row in self.rows],
            "total": self.total,
            "before": self.before,
            "problems": list(self.problems),
        }


@dataclass
class _Message:
    sender: str
    timestamp: str
    text: str
    summary: str | None
    recipients: list[str] = field(default_factory=list)
    read: bool = True
    delivered: bool = False


def read_conversation(
    ws: Workspace, team: str, member: str, *, limit: int = 50, before: int | None = None
) -> Conversation:
    """The ``limit`` rows of ``member``'s conversation before row ``before`` (default: the
    newest), oldest first.

    Raises:
        NotFound: no such team or member.
        InvalidFile: config.json cannot be read.
        Refused: ``limit`` or ``before`` out of range.
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise Refused(f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
    if before is not None and before < 0:
        raise Refused(f"before must be a row index (0 or more), not {before}")
    config = read_team(ws, team)
    name = resolve_member(config, team, member, role="member")
    messages: dict[tuple[str, str, str], _Message] = {}

    def touch(sender: str, timestamp: str, text: str, summary: str | None) -> _Message:
        key = (sender.lower(), timestamp, text)
        found = messages.get(key)
        if found is None:
            found = messages[key] = _Message(sender, timestamp, text, summary)
        return found

    inboxes = read_inboxes(ws, team)
    problems = [f"inbox of {who}: {why}" for who, why in inboxes.unreadable.items()]
    for recipient, entry in inboxes.entries():
        message = entry.message
        assert message is not None, "entries() holds decoded messages only"
        if recipient.lower() != name.lower() and message.from_.lower() != name.lower():
            continue
        row = touch(message.from_, message.timestamp, message.text, message.summary)
        if recipient not in row.recipients:
            row.recipients.append(recipient)
        row.read = row.read and message.read
        row.delivered = True
    records, bad = read_log(ws, team)
    problems += bad
    for record in records:
        if record.type not in SEND_TYPES or record.from_ is None or record.timestamp is None or record.text is None:
            continue
        recipients = record.to or []
        if record.from_.lower() != name.lower() and name.lower() not in (to.lower() for to in recipients):
            continue
        row = touch(record.from_, record.timestamp, record.text, record.summary)
        row.recipients += [to for to in recipients if to not in row.recipients]
    ordered = sorted(messages.values(), key=lambda message: (message.timestamp, message.sender, message.text))
    rows = _fold(name, ordered)
    end = len(rows) if before is None else min(before, len(rows))
    start = max(0, end - limit)
    return Conversation(team, name, tuple(rows[start:end]), len(rows), start if start > 0 else None, tuple(problems))


def _fold(member: str, messages: list[_Message]) -> list[ConversationRow]:
    """The messages as rows, consecutive idle notifications of one sender folded."""
    rows: list[ConversationRow] = []
    for message in messages:
        kind = decode_text(message.text)
        last = rows[-1] if rows else None
        if kind.KIND == IDLE and last is not None and last.kind == IDLE and last.sender == message.sender:
            rows[-1] = replace(
                last,
                timestamp=message.timestamp,
                text=message.text[:TEXT_CHARS],
                read=last.read and message.read,
                count=last.count + 1,
            )
            continue
        rows.append(
            ConversationRow(
                index=len(rows),
                direction="sent" if message.sender.lower() == member.lower() else "received",
                sender=message.sender,
                recipients=tuple(message.recipients),
                timestamp=message.timestamp,
                kind=kind.KIND,
                summary=message.summary,
                text=message.text[:TEXT_CHARS],
                truncated=len(message.text) > TEXT_CHARS,
                request_id=kind.correlation_id,
                read=message.read,
                delivered=message.delivered,
            )
        )
    return rows
