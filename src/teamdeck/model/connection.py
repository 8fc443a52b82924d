"""``teams/<team>/connections/<member>.json``: the heartbeat of a ``teamdeck mcp --http``
server acting as a member, so the roster can show who is connected.

The server writes it when it starts, rewrites it every :data:`HEARTBEAT_S` seconds and
removes it on exit; a file whose ``beatAt`` is older than :data:`STALE_S` was left by a
server that died and is ignored.
"""

from __future__ import annotations

from pydantic import Field

from teamdeck.model.base import OurModel, Timestamp

HEARTBEAT_S = 10.0
STALE_S = 3 * HEARTBEAT_S


class Connection(OurModel):
    """One heartbeat file."""

    member: str
    team: str
    transport: str = Field(description="how agents reach the server: streamable-http")
    url: str = Field(description="where agents connect, e.g. http://127.0.0.1:8765/mcp")
    pid: int
    host: str
    startedAt: Timestamp
    beatAt: Timestamp = Field(description="when the file was last rewritten")
    calls: int = Field(default=0, ge=0, description="tool calls served so far")
    lastCallAt: Timestamp | None = None
