"""The read side of one member's inbox: its messages as they are, nothing marked read
(``teamdeck inbox``, the MCP server's ``read_inbox`` with ``unread_only`` false).
Taking unread messages for a turn, which marks them, is injection.py."""

from __future__ import annotations

from teamdeck.formats.inboxes import InboxEntry
from teamdeck.formats.registry import team_format
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.workspace import Workspace


def list_inbox(ws: Workspace, team: str, member: str, *, unread_only: bool = False) -> list[InboxEntry]:
    """A member's messages in file order, without marking anything read.

    Raises:
        NotFound: no such team or member.
        UnreadableInbox: the inbox is not a JSON array.
    """
    config = read_team(ws, team)
    files = team_format(ws, team)
    inbox = files.read_inbox(files.inbox(ws, team, resolve_member(config, team, member, role="member")))
    return inbox.unread if unread_only else inbox.messages
