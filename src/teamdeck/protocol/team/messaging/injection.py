"""Injection: a member's unread messages taken for its next turn, marked read in one
locked write, shutdown requests first (seed 004 §5.2), each with the
``<teammate-message>`` block Claude Code shows an agent."""

from __future__ import annotations

import html
from typing import Any, NamedTuple

from teamdeck.formats.blocks import inert_body
from teamdeck.formats.registry import team_format
from teamdeck.model.team import decode_text
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.workspace import Workspace

SHUTDOWN_FIRST = ("shutdown_request",)
"""Kinds injected before all others (seed 004 §5.2)."""


class Injected(NamedTuple):
    """One message delivered to an agent harness, with its metadata (seed 004 §5.2); a
    NamedTuple, not a dataclass: importing ``dataclasses`` would cost every
    ``inbox --inject`` ~8 ms."""

    team: str
    sender: str
    recipient: str
    kind: str
    timestamp: str
    text: str
    summary: str | None = None
    color: str | None = None
    request_id: str | None = None

    @property
    def block(self) -> str:
        """The ``<teammate-message ...>body</teammate-message>`` block the agent sees."""
        return format_block(self.sender, self.text, color=self.color, summary=self.summary)

    def to_json(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "from": self.sender,
            "to": self.recipient,
            "type": self.kind,
            "requestId": self.request_id,
            "timestamp": self.timestamp,
            "summary": self.summary,
            "color": self.color,
            "text": self.text,
            "block": self.block,
        }


def format_block(sender: str, text: str, *, color: str | None = None, summary: str | None = None) -> str:
    """A message as Claude Code shows it to an agent; attribute values are escaped, and
    the body cannot open or close a block of its own (formats/blocks.py)."""
    attributes = [f'teammate_id="{html.escape(sender)}"']
    if color:
        attributes.append(f'color="{html.escape(color)}"')
    if summary:
        attributes.append(f'summary="{html.escape(summary)}"')
    return f"<teammate-message {' '.join(attributes)}>\n{inert_body(text)}\n</teammate-message>"


def inject(ws: Workspace, team: str, member: str) -> list[Injected]:
    """Take a member's unread messages for its next turn: marked read in one locked
    write, returned shutdown requests first, then in file order.

    Raises:
        ReadOnly, NotFound: nothing was marked.
        UnreadableInbox, Busy, WriteFailed: nothing was marked.
    """
    ws.require_writable(f"mark messages read in team '{team}'")
    config = read_team(ws, team)
    recipient = resolve_member(config, team, member, role="member")
    files = team_format(ws, team)
    taken = files.take_unread(files.inbox(ws, team, recipient))
    injected = []
    for raw in taken:
        text = raw["text"] if isinstance(raw.get("text"), str) else ""
        kind = decode_text(text)
        injected.append(
            Injected(
                team,
                str(raw.get("from", "")),
                recipient,
                kind.KIND,
                str(raw.get("timestamp", "")),
                text,
                summary=raw.get("summary"),
                color=raw.get("color"),
                request_id=kind.correlation_id,
            )
        )
    return sorted(injected, key=lambda item: item.kind not in SHUTDOWN_FIRST)
