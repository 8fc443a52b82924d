"""Listening safely: the address and its token rule, the bearer check, the limits every
request is held to, and binding the socket before a server starts, so a port in use is
one line.

A server listens on loopback unless told otherwise and asks a bearer token
(:func:`token_from`) on every listener, loopback too (any local process or user could
reach a loopback port), unless the person turns it off by name (``--no-token``, loopback
only); it is checked in constant time on every request and WebSocket handshake
(:class:`BearerAuth`): ``teamdeck mcp --http`` and ``teamdeck serve --listen``.
(``teamdeck forge serve`` checks the HMAC signature of every delivery instead, and
``teamdeck web`` has its own token.)

Limits (:class:`Limits`, :func:`server_config`, shared by every listener, B30): a
request's head must arrive within :data:`HEAD_TIMEOUT_S` of the connection (or of the
previous answer on it) and be at most :data:`MAX_HEAD_BYTES`; its body within
:data:`BODY_TIMEOUT_S` and at most ``max_body`` bytes (:class:`BodyLimit`: 408 and 413,
the connection closed); a connection beyond ``max_connections`` is closed as it is
accepted, so half-finished requests can hold neither the file descriptors nor more than
``max_connections x max_body`` of memory. uvicorn has no timeout on a request's head (its
keep-alive timer starts only after an answer, and any byte stops it): the one addition is
an h11 protocol class that closes a connection whose head is late.

Binding: uvicorn binds inside its startup and, when the address is taken, logs the
error and exits the process with a traceback through whatever task group runs it. Binding here
first turns that into a :class:`~teamdeck.errors.Refused` the CLI prints as one line,
and lets a command say "serving on ..." only once it really is.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import os
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from teamdeck.errors import Refused

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)

HEAD_TIMEOUT_S = 5.0
"""How long a client may take to send a request's head (its request line and headers),
from the connection or the end of the previous answer on it."""
BODY_TIMEOUT_S = 10.0
"""How long a client may take to send a request's whole body, once its head is in."""
MAX_HEAD_BYTES = 16 * 1024
"""The largest request head (h11's own default, said here so it stays)."""
MAX_BODY = 1024 * 1024
"""The largest request body by default (an MCP tool call is a few KiB)."""
MAX_MESSAGE = 1024 * 1024
"""The largest WebSocket message (the stream's frames are at most 256 KiB)."""
MAX_CONNECTIONS = 64
"""Connections open at once, by default; more are closed as they are accepted."""
IDLE_S = 5
"""How long an idle keep-alive connection stays open after an answer (uvicorn's)."""


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


def token_from(variable: str | None, address: Address, option: str, *, no_token: bool = False) -> str | None:
    """The bearer token in ``$variable``, required on every address unless ``no_token``
    (``--no-token``: loopback only). Read from the environment, never the command line,
    where other users could see it. None: ``no_token``.

    Raises:
        Refused: no token and no ``--no-token``; ``--no-token`` with a token or beyond
            loopback; the variable is unset or empty.
    """
    where = f"{option} {address.host}:{address.port}"
    if no_token:
        if variable is not None:
            raise Refused(f"--no-token and --token-env {variable}: choose one")
        if not address.loopback:
            raise Refused(
                f"{where} is reachable from other machines: --no-token is for loopback only; give a bearer "
                "token with --token-env VAR (the token in $VAR)"
            )
        return None
    if variable is None:
        if not address.loopback:
            raise Refused(
                f"{where} is reachable from other machines: give a bearer token "
                "with --token-env VAR (the token in $VAR), or bind 127.0.0.1"
            )
        raise Refused(
            f"{where}: give a bearer token with --token-env VAR (the token in $VAR), or --no-token to let "
            "every process and user of this machine in"
        )
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


@dataclass(frozen=True)
class Limits:
    """What one request (and one listener) may take; see the module."""

    max_body: int = MAX_BODY
    body_timeout: float = BODY_TIMEOUT_S
    head_timeout: float = HEAD_TIMEOUT_S
    max_head: int = MAX_HEAD_BYTES
    max_connections: int = MAX_CONNECTIONS
    max_message: int = MAX_MESSAGE


def _refusal(status: int, error: str, *, close: bool) -> tuple[Message, Message]:
    body = json.dumps({"error": error}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:  # uvicorn closes the connection after an answer that says so
        headers.append((b"connection", b"close"))
    start: Message = {"type": "http.response.start", "status": status, "headers": headers}
    return start, {"type": "http.response.body", "body": body}


class BodyLimit:
    """ASGI middleware: an HTTP request's body is read whole before ``app`` sees it, at
    most ``limits.max_body`` bytes (413 when declared or sent larger, before more is read)
    within ``limits.body_timeout`` seconds (408); both close the connection and never
    reach ``app``. ``app`` then receives the body in one message."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.max_body
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await self._refuse(send, 413, f"the body is larger than {limit:,} bytes; nothing was done")
            return
        body = bytearray()
        try:
            async with asyncio.timeout(self.limits.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        return  # the client left
                    body += message.get("body", b"")
                    if len(body) > limit:
                        await self._refuse(send, 413, f"the body is larger than {limit:,} bytes; nothing was done")
                        return
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            timeout = self.limits.body_timeout
            await self._refuse(send, 408, f"the body did not arrive within {timeout:g} s; nothing was done")
            return
        given = False

        async def replay() -> Message:
            nonlocal given
            if given:
                return await receive()  # what comes after the body: the client leaving
            given = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send, status: int, error: str) -> None:
        for message in _refusal(status, error, close=True):
            await send(message)


def server_config(app: ASGIApp, limits: Limits, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration for serving ``app`` held to ``limits`` (see the module):
    its body behind :class:`BodyLimit`, its heads timed by an h11 protocol that also
    closes connections beyond the cap, uvicorn's own ``limit_concurrency`` (503 for a
    request when that many are open), ``timeout_keep_alive``, ``h11_max_incomplete_event_size``
    and ``ws_max_size``. ``options`` go to ``uvicorn.Config`` as they are."""
    import uvicorn

    return uvicorn.Config(
        BodyLimit(app, limits),
        http=_head_timed(limits),
        limit_concurrency=limits.max_connections,
        timeout_keep_alive=IDLE_S,
        h11_max_incomplete_event_size=limits.max_head,
        ws_max_size=limits.max_message,
        **options,
    )


FULL = b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
"""The answer to a connection beyond the cap, written as it is accepted, before it is closed."""
_warned: list[float] = []


def _warn_full(cap: int) -> None:
    """Say that connections are refused, once in a while (not once per connection)."""
    now = asyncio.get_running_loop().time()
    if not _warned or now - _warned[-1] > 10:
        _warned[:] = [now]
        log.warning("listen: %d connections open already; closing new ones as they come", cap)


def _head_timed(limits: Limits) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection beyond ``limits.max_connections`` as
    it is accepted, and one whose request head has not arrived ``limits.head_timeout``
    seconds after the connection or the previous answer (imported here: only a server
    needs uvicorn)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadTimed(H11Protocol):
        head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            if len(self.connections) > limits.max_connections:
                _warn_full(limits.max_connections)
                self.transport.write(FULL)
                self.transport.close()
                return
            self._time_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._head_in()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._head_in()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._time_head()  # the next request's head: timed again

        def _time_head(self) -> None:
            self._head_in()
            self.head_timer = self.loop.call_later(limits.head_timeout, self._head_late)

        def _head_in(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None

        def _head_late(self) -> None:
            self.head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return HeadTimed
