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
    """A member's messages in file order, without marking anything read: with what
    teamdeck recorded of them (protocol/team/observed.py), so that messages Claude Code
    drained from the file after delivering them are still listed, as read, as the TUI
    shows them.

    Raises:
        NotFound: no such team or member.
        UnreadableInbox: the inbox is not a JSON array.
    """
    config = read_team(ws, team)
    files = team_format(ws, team)
    path = files.inbox(ws, team, resolve_member(config, team, member, role="member"))
    if unread_only:  # a drained message was delivered: it is never unread
        return files.read_inbox(path).unread
    from teamdeck.protocol.team.observed import Observed  # the team's record: only for the whole inbox

    return Observed(ws, team).read(path).messages
