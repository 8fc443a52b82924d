"""Binding a listening socket before a server starts, so a port in use is one line.

uvicorn binds inside its startup and, when the address is taken, logs the error and
exits the process with a traceback through whatever task group runs it. Binding here
first turns that into a :class:`~teamdeck.errors.Refused` the CLI prints as one line,
and lets a command say "serving on ..." only once it really is.
"""

from __future__ import annotations

import os
import socket

from teamdeck.errors import Refused


def bind(host: str, port: int, what: str) -> socket.socket:
    """A socket listening on ``host:port`` (IPv6 when ``host`` has a colon).

    Args:
        what: what would have been served, for the message ("the MCP server").

    Raises:
        Refused: the address is in use, not this machine's, or not allowed.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    shown = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
    try:
        return socket.create_server((host, port), family=family, backlog=2048)
    except OSError as err:
        reason = os.strerror(err.errno).lower() if err.errno else str(err)
        raise Refused(f"Could not start {what} on {shown}: {reason}") from None
