"""What the runner reads in a team's inboxes: a member's unread messages (the work a run
is woken for), each known by a digest of its sender, timestamp and text; and whether a
member approved its shutdown."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from teamdeck.errors import TeamdeckError
from teamdeck.formats.inboxes import InboxEntry, UnreadableInbox
from teamdeck.model.team import ShutdownApproved
from teamdeck.protocol.team.inboxes import read_inbox
from teamdeck.protocol.team.messaging.injection import SHUTDOWN_FIRST, format_block
from teamdeck.runtime.spec import Message
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line


@dataclass(frozen=True)
class Unread:
    """One unread message and its identity."""

    key: str
    message: Message


def message_key(sender: str, timestamp: str, text: str) -> str:
    """A message's identity: the same message read twice has the same key."""
    digest = hashlib.blake2b(f"{sender}\0{timestamp}\0{text}".encode(errors="replace"), digest_size=10)
    return digest.hexdigest()


def _as_unread(entry: InboxEntry) -> Unread | None:
    message, kind = entry.message, entry.kind
    if message is None or kind is None:
        return None
    return Unread(
        message_key(message.from_, message.timestamp, message.text),
        Message(
            sender=message.from_,
            kind=kind.KIND,
            timestamp=message.timestamp,
            text=message.text,
            block=format_block(message.from_, message.text, color=message.color, summary=message.summary),
            summary=message.summary,
            color=message.color,
            request_id=kind.correlation_id,
        ),
    )


def unread(ws: Workspace, team: str, member: str) -> list[Unread]:
    """``member``'s unread messages, shutdown requests first, then in inbox order (an
    inbox that cannot be read has none: ``teamdeck validate`` reports it)."""
    try:
        inbox = read_inbox(ws, team, member)
    except (FileNotFoundError, UnreadableInbox):
        return []
    found = [item for item in map(_as_unread, inbox.unread) if item is not None]
    return sorted(found, key=lambda item: item.message.kind not in SHUTDOWN_FIRST)


def approved_shutdown(ws: Workspace, team: str, lead: str, member: str, since: str) -> str | None:
    """The request id of a shutdown ``member`` approved (in the ``lead``'s inbox, where
    the approval goes) at or after ``since`` (ISO), or None."""
    try:
        inbox = read_inbox(ws, team, lead)
    except (FileNotFoundError, UnreadableInbox):
        return None
    for entry in inbox.entries:
        kind, message = entry.kind, entry.message
        if isinstance(kind, ShutdownApproved) and message is not None and message.from_.lower() == member.lower():
            if (kind.timestamp or message.timestamp) >= since:
                return kind.requestId
    return None


NAMED_AT_MOST = 20
"""The messages a give-up decision names one per line; past this many, how many more."""


def named(messages: tuple[Unread, ...]) -> str:
    """The messages a failed run was woken for, one line each (sender, timestamp,
    summary or first words), for the ``run-failed`` decision that keeps them (F22)."""
    if not messages:
        return "--- messages: none (a wake without messages)"
    lines = [
        f"{one_line(item.message.sender, 64)} at {one_line(item.message.timestamp, 40)}: "
        f"{one_line(item.message.summary or item.message.text, 120)}"
        for item in messages[:NAMED_AT_MOST]
    ]
    if len(messages) > NAMED_AT_MOST:
        lines.append(f"... and {len(messages) - NAMED_AT_MOST} more")
    return f"--- messages ({len(messages)}), unread again for a retry\n" + "\n".join(lines)


def woken_for(ws: Workspace, team: str, member: str, run_id: str | None) -> tuple[Unread, ...]:
    """The messages the run ``run_id`` was woken for (its messages.json), as a retry of
    it injects them again; none when they cannot be read."""
    if run_id is None:
        return ()
    try:
        raw = json.loads(ws.run_dir(team, member, run_id).joinpath("messages.json").read_bytes())
    except (OSError, ValueError, TeamdeckError):
        return ()
    messages = [Message.from_json(item) for item in raw if isinstance(item, dict)] if isinstance(raw, list) else []
    return tuple(Unread(message_key(m.sender, m.timestamp, m.text), m) for m in messages)
