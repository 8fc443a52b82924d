"""The read side of a team's inboxes: every inbox of a team read at once, an unreadable
one reported and the others still read. What the read model (view/) and the handshake
ledger read; protocol/team/messaging/ writes."""

from __future__ import annotations

from dataclasses import dataclass, field

from teamdeck.formats.inboxes import Inbox, InboxEntry, UnreadableInbox
from teamdeck.formats.registry import team_format
from teamdeck.protocol.team.observed import Observed
from teamdeck.store.workspace import Workspace


@dataclass
class TeamInboxes:
    """Every inbox of a team as read.

    Attributes:
        inboxes: recipient → inbox, for the inboxes that could be read.
        unreadable: recipient → the one-line problem, for those that could not (B14).
        ignored: inbox files whose names are not usable member names (B17).
    """

    inboxes: dict[str, Inbox] = field(default_factory=dict)
    unreadable: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)

    def entries(self) -> list[tuple[str, InboxEntry]]:
        """Every message of every readable inbox with its recipient, inbox by inbox."""
        return [(recipient, entry) for recipient, inbox in self.inboxes.items() for entry in inbox.messages]


def read_inbox(ws: Workspace, team: str, member: str) -> Inbox:
    """``member``'s inbox in ``team`` as its file holds it now (nothing merged).

    Raises:
        UnreadableInbox: the file cannot be read as an inbox.
    """
    files = team_format(ws, team)
    return files.read_inbox(files.inbox(ws, team, member))


def read_inboxes(ws: Workspace, team: str, observed: Observed | None = None) -> TeamInboxes:
    """Read every inbox of ``team``, each merged with what teamdeck saw in it before
    (``observed``: the team's record, kept by a live view; made here when None), so a
    message Claude Code drained is still there (protocol/team/observed.py). An unreadable
    inbox is reported, the others still read."""
    observed = observed if observed is not None else Observed(ws, team)
    files = team_format(ws, team)
    paths, ignored = files.inbox_paths(ws, team)
    result = TeamInboxes(ignored=ignored)
    for path in paths:
        try:
            inbox = observed.read(path)
        except UnreadableInbox as err:
            result.unreadable[files.recipient_of(path)] = str(err)
            continue
        result.inboxes[inbox.recipient] = inbox
    return result
