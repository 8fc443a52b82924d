"""Serving the tools over the SDK's streamable HTTP transport (``teamdeck mcp --http``).

- The address defaults to loopback. Binding anything else needs a bearer token
  (``--token-env VAR``: the token is read from that environment variable, never from
  the command line, where other users could see it); without one the server refuses to
  start.
- With a token, every request must carry ``Authorization: Bearer <token>``; any other
  is answered ``401`` before it reaches the MCP app, so it can read or write nothing.
- While it serves, the server keeps a heartbeat file under the team directory
  (``teams/<team>/connections/<member>.json``, model/connection.py): the roster shows
  the member as connected. The file is removed on exit.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
import signal
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from teamdeck.errors import Refused
from teamdeck.listen import bind
from teamdeck.mcp_server.heartbeat import announced, ended, keep_beating
from teamdeck.mcp_server.seat import Seat
from teamdeck.mcp_server.server import build_server

log = logging.getLogger(__name__)

PATH = "/mcp"
"""Where the MCP endpoint is served."""


@dataclass(frozen=True)
class Address:
    """``HOST:PORT`` as given to ``--http``."""

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

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{PATH}"


def parse_address(text: str) -> Address:
    """``127.0.0.1:8765``, ``:8765`` (loopback), ``[::1]:8765`` or ``0.0.0.0:8765``.

    Raises:
        Refused: not ``HOST:PORT`` with a port from 1 to 65535.
    """
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise Refused(f"--http '{text}': expected HOST:PORT (e.g. 127.0.0.1:8765) with a port from 1 to 65535")
    host = host.strip("[]") or "127.0.0.1"
    return Address(host, int(port))


def token_from(variable: str | None, address: Address) -> str | None:
    """The bearer token in ``$variable``; required when ``address`` is not loopback.

    Raises:
        Refused: no token for a non-loopback address, or the variable is unset or empty.
    """
    if variable is None:
        if not address.loopback:
            raise Refused(
                f"--http {address.host}:{address.port} is reachable from other machines: give a bearer token "
                "with --token-env VAR (the token in $VAR), or bind 127.0.0.1"
            )
        return None
    token = os.environ.get(variable, "")
    if not token.strip():
        raise Refused(f"--token-env {variable}: ${variable} is not set or empty")
    return token


class BearerAuth:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``
    (compared in constant time); others get ``401`` and never reach ``app``."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        if hmac.compare_digest(given, self.expected):
            await self.app(scope, receive, send)
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


def serve_http(seat: Seat, address: Address, token: str | None, *, started: Callable[[], None] = lambda: None) -> None:
    """Serve until interrupted (SIGINT/SIGTERM), keeping the heartbeat meanwhile.

    Args:
        started: called once the server accepts requests (the CLI says where it serves).

    Raises:
        Refused: no token for a non-loopback address (checked by the caller too), or
            the address cannot be bound (in use, not this machine's).
    """
    if token is None and not address.loopback:
        raise Refused(f"refusing to serve {address.url} without a bearer token")
    listening = bind(address.host, address.port, f"the MCP server for {seat.member}")
    # uvicorn stops on SIGINT/SIGTERM and, once shut down, raises the signal again:
    # record it instead, so the heartbeat is removed first and the exit is quiet. A
    # signal that comes before uvicorn installs its own handlers stops it too.
    stopped: list[int] = []
    servers: list[Any] = []

    def stop(signum: int, _frame: object) -> None:
        stopped.append(signum)
        for server in servers:
            server.should_exit = True

    handled = (signal.SIGINT, signal.SIGTERM)
    previous = {signum: signal.signal(signum, stop) for signum in handled}
    try:
        anyio.run(_serve, seat, address, token, listening, (servers, stopped), started)
    finally:
        listening.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if signal.SIGINT in stopped:
        raise KeyboardInterrupt
    if stopped:
        raise SystemExit(128 + stopped[0])


async def _serve(
    seat: Seat,
    address: Address,
    token: str | None,
    listening: socket.socket,
    signalled: tuple[list[Any], list[int]],
    started: Callable[[], None],
) -> None:
    import uvicorn

    heartbeat = announced(seat, "streamable-http", address.url)
    server = build_server(seat, heartbeat)
    app: ASGIApp = server.streamable_http_app(streamable_http_path=PATH, host=address.host)
    if token is not None:
        app = BearerAuth(app, token)
    config = uvicorn.Config(app, host=address.host, port=address.port, log_level="warning", lifespan="on")
    web = uvicorn.Server(config)
    servers, stopped = signalled
    servers.append(web)
    web.should_exit = bool(stopped)  # a signal came while this was being set up
    try:
        async with anyio.create_task_group() as group:
            if heartbeat is not None:
                group.start_soon(keep_beating, heartbeat)
            group.start_soon(_tell_when_started, web, started)
            await web.serve(sockets=[listening])
            group.cancel_scope.cancel()
    finally:
        ended(heartbeat)


async def _tell_when_started(web: Any, started: Callable[[], None]) -> None:
    """Call ``started`` once uvicorn has started (it sets a flag, it has no event)."""
    while not web.started:
        if web.should_exit:
            return
        await anyio.sleep(0.02)
    started()
