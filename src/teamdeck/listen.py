"""Listening safely: the address and its token rule, the bearer check, and binding the
socket before a server starts, so a port in use is one line.

A server listens on loopback unless told otherwise, and anything else needs a bearer
token (:func:`token_from`), checked in constant time on every request and WebSocket
handshake (:class:`BearerAuth`): ``teamdeck mcp --http`` and ``teamdeck serve --listen``.

Binding: uvicorn binds inside its startup and, when the address is taken, logs the
error and exits the process with a traceback through whatever task group runs it. Binding here
first turns that into a :class:`~teamdeck.errors.Refused` the CLI prints as one line,
and lets a command say "serving on ..." only once it really is.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING

from teamdeck.errors import Refused

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send


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


@dataclass(frozen=True)
class Address:
    """``HOST:PORT`` as given to a server's option (``--http``, ``--listen``)."""

    host: str
    port: int

    @property
    def loopback(self) -> bool:
        """Whether only this machine can reach the address."""
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def url(self, scheme: str, path: str) -> str:
        """``scheme://host:port/path`` (an IPv6 host in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{scheme}://{host}:{self.port}{path}"


def parse_address(text: str, option: str) -> Address:
    """``127.0.0.1:8765``, ``:8765`` (loopback), ``[::1]:8765`` or ``0.0.0.0:8765``.

    Raises:
        Refused: not ``HOST:PORT`` with a port from 1 to 65535 (naming ``option``).
    """
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise Refused(f"{option} '{text}': expected HOST:PORT (e.g. 127.0.0.1:8765) with a port from 1 to 65535")
    host = host.strip("[]") or "127.0.0.1"
    return Address(host, int(port))


def token_from(variable: str | None, address: Address, option: str) -> str | None:
    """The bearer token in ``$variable``; required when ``address`` is not loopback.
    Read from the environment, never the command line, where other users could see it.

    Raises:
        Refused: no token for a non-loopback address, or the variable is unset or empty.
    """
    if variable is None:
        if not address.loopback:
            raise Refused(
                f"{option} {address.host}:{address.port} is reachable from other machines: give a bearer token "
                "with --token-env VAR (the token in $VAR), or bind 127.0.0.1"
            )
        return None
    token = os.environ.get(variable, "")
    if not token.strip():
        raise Refused(f"--token-env {variable}: ${variable} is not set or empty")
    return token


class BearerAuth:
    """ASGI middleware: every HTTP request and every WebSocket handshake must carry
    ``Authorization: Bearer <token>`` (compared in constant time); others are refused
    (401; a WebSocket is closed before it is accepted, which the client sees as 403)
    and never reach ``app``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, self.expected):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "unauthorized"})
            return
        body = json.dumps({"error": "unauthorized: send Authorization: Bearer <token>"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="teamdeck"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
