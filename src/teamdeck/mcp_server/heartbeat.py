"""The heartbeat a ``teamdeck mcp`` server keeps while it acts as a member (HTTP, or a
stdio channel): the roster shows the member connected (model/connection.py)."""

from __future__ import annotations

import logging

import anyio

from teamdeck.errors import TeamdeckError
from teamdeck.mcp_server.seat import Seat
from teamdeck.model.connection import HEARTBEAT_S
from teamdeck.protocol.team.connections import Heartbeat, announce

log = logging.getLogger(__name__)


def announced(seat: Seat, transport: str, url: str) -> Heartbeat | None:
    """Write the first heartbeat; a workspace that cannot take it (read-only) serves anyway."""
    try:
        return announce(seat.ws, seat.team, seat.member, transport=transport, url=url)
    except TeamdeckError as err:
        log.warning("serving without a heartbeat (the roster will not show %s as connected): %s", seat.member, err)
        return None


async def keep_beating(heartbeat: Heartbeat) -> None:
    """Rewrite the heartbeat every :data:`HEARTBEAT_S` seconds until cancelled."""
    while True:
        await anyio.sleep(HEARTBEAT_S)
        try:
            await anyio.to_thread.run_sync(heartbeat.beat)
        except TeamdeckError as err:
            log.warning("could not rewrite the heartbeat: %s", err)


def ended(heartbeat: Heartbeat | None) -> None:
    """Remove the heartbeat file (the server stops serving)."""
    if heartbeat is None:
        return
    try:
        heartbeat.end()
    except OSError as err:
        log.warning("could not remove the heartbeat file: %s", err)
