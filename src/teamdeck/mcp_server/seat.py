"""Who an MCP server acts as: a member of a team in a workspace, its :class:`Seat`.

Kept apart from the server so the tools (mcp_server/tools.py) and ``teamdeck mcp
--help`` name it without importing the MCP SDK.
"""

from __future__ import annotations

from dataclasses import dataclass

from teamdeck.protocol.coordination import delegation, roles
from teamdeck.protocol.team import teams
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.store.workspace import Workspace


@dataclass(frozen=True)
class Seat:
    """Who the server acts as: a member of a team in a workspace (``ws.actor`` is
    ``agent:<member>@<team>``)."""

    ws: Workspace
    team: str
    member: str
    role: str = "none"
    """Its role in the roster (protocol/coordination/roles.py): which tools the server offers."""

    @property
    def worker_id(self) -> str:
        """The member's worker id on tasks (its name in lower case, as delegate records it)."""
        return delegation.worker_id_for(self.member)


def take_seat(ws: Workspace, team: str, member: str) -> Seat:
    """The seat of ``member`` (any spelling ``send`` accepts) in ``team``.

    Raises:
        NotFound: no such team, or the member is not on it.
        InvalidFile: config.json cannot be read.
    """
    config = teams.read_team(ws, team)
    name = resolve_member(config, team, member, role="member")
    return Seat(ws._replace(actor=f"agent:{name}@{team}"), team, name, roles.role_of(config, name))
