"""Announcing an MCP server acting as a member (model/connection.py): the heartbeat
``teamdeck mcp --http`` keeps while it serves, so the roster shows the member as
connected."""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field

from teamdeck.clock import iso
from teamdeck.model.connection import Connection
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.connections import remove_connection, write_connection
from teamdeck.store.workspace import Workspace


@dataclass
class Heartbeat:
    """The heartbeat of one server: :meth:`beat` rewrites it (call it every
    ``HEARTBEAT_S`` seconds and after calls if you like), :meth:`end` removes it."""

    ws: Workspace
    connection: Connection
    calls: int = field(default=0)
    last_call_at: str | None = None

    def called(self) -> None:
        """Count a tool call (written with the next beat)."""
        self.calls += 1
        self.last_call_at = iso(self.ws.clock())

    def beat(self) -> None:
        """Rewrite the file with the time now.

        Raises:
            ReadOnly, WriteFailed.
        """
        self.connection = self.connection.model_copy(
            update={"beatAt": iso(self.ws.clock()), "calls": self.calls, "lastCallAt": self.last_call_at}
        )
        write_connection(self.ws, self.connection)

    def end(self) -> None:
        """Remove the file."""
        remove_connection(self.ws, self.connection.team, self.connection.member)


def announce(ws: Workspace, team: str, member: str, *, transport: str, url: str) -> Heartbeat:
    """Write the first heartbeat of a server acting as ``member`` of ``team``.

    Raises:
        NotFound: no such team or member.
        ReadOnly, WriteFailed: the file could not be written.
    """
    name = resolve_member(read_team(ws, team), team, member, role="member")
    now = iso(ws.clock())
    connection = Connection(
        member=name,
        team=team,
        transport=transport,
        url=url,
        pid=os.getpid(),
        host=socket.gethostname(),
        startedAt=now,
        beatAt=now,
    )
    heartbeat = Heartbeat(ws, connection)
    write_connection(ws, connection)
    return heartbeat
