"""Serving the tools over the SDK's streamable HTTP transport (``teamdeck mcp --http``).

- The address defaults to loopback. Every address needs a bearer token (``--token-env
  VAR``: the token is read from that environment variable, never from the command line,
  where other users could see it), loopback too: any process of any user of the machine
  can reach a loopback port and would act as the member. Only ``--no-token``, on
  loopback, serves without one; otherwise the server refuses to start.
- With a token, every request must carry ``Authorization: Bearer <token>``; any other
  is answered ``401`` before it reaches the MCP app, so it can read or write nothing.
- Every request is held to the listeners' limits (teamdeck/listen.py, B30): its head
  within 5 s, its body 1 MiB at most within 10 s, 32 connections at once.
- While it serves, the server keeps a heartbeat file under the team directory
  (``teams/<team>/connections/<member>.json``, model/connection.py): the roster shows
  the member as connected. The file is removed on exit.
"""

from __future__ import annotations

import logging
import signal
import socket
from collections.abc import Callable
from typing import Any

import anyio
from starlette.types import ASGIApp

from teamdeck.errors import Refused
from teamdeck.listen import Address, BearerAuth, Limits, bind, server_config
from teamdeck.mcp_server.heartbeat import announced, ended, keep_beating
from teamdeck.mcp_server.seat import Seat
from teamdeck.mcp_server.server import build_server

log = logging.getLogger(__name__)

PATH = "/mcp"
"""Where the MCP endpoint is served."""
LIMITS = Limits(max_connections=32)
"""One agent's client: a few connections (a request, its stream), never dozens."""


def serve_http(seat: Seat, address: Address, token: str | None, *, started: Callable[[], None] = lambda: None) -> None:
    """Serve until interrupted (SIGINT/SIGTERM), keeping the heartbeat meanwhile.

    Args:
        started: called once the server accepts requests (the CLI says where it serves).

    Raises:
        Refused: no token for a non-loopback address (checked by the caller too), or
            the address cannot be bound (in use, not this machine's).
    """
    if token is None and not address.loopback:
        raise Refused(f"refusing to serve {address.url('http', PATH)} without a bearer token")
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

    heartbeat = announced(seat, "streamable-http", address.url("http", PATH))
    server = build_server(seat, heartbeat)
    app: ASGIApp = server.streamable_http_app(streamable_http_path=PATH, host=address.host)
    if token is not None:
        app = BearerAuth(app, token)
    config = server_config(app, LIMITS, host=address.host, port=address.port, log_level="warning", lifespan="on")
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
