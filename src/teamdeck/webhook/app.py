"""``teamdeck forge serve``: Gitea webhooks over HTTP.

``POST /hook`` (also ``POST /``) takes one delivery: its body arrives through the limits
every listener has (teamdeck/listen.py: a head within 5 s, a body of at most
:data:`MAX_BODY` bytes, 413 before more is read, within 10 s, else 408: a client
trickling bytes cannot hold a connection), its
signature is checked (webhook/signature.py: 401 and nothing written when it does not
match), then the protocol's :func:`receive` deduplicates and applies it in a worker
thread, one delivery at a time. Its outcome is the answer, with the status
:func:`status_of` gives it (200 applied or duplicate, 202 ignored, 400 invalid, 500
failed, 503 busy: the HTTP side of a delivery lives here).
A bug in one delivery is a 500 and a logged traceback; the server keeps serving.
``GET /health`` answers 200 for probes.

The signature is this listener's token: every delivery must carry the HMAC-SHA256 of its
body keyed with the shared secret, which never travels, so a bearer token would add
nothing (and Gitea would have to be told it too); ``forge serve`` refuses to start
without the secret, on any address.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from teamdeck.listen import Limits
from teamdeck.protocol.forge.deliveries import Outcome, event_of, receive
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line
from teamdeck.webhook.signature import signed

log = logging.getLogger("teamdeck.forge")

MAX_BODY = 5 * 1024 * 1024
"""The largest delivery accepted, in bytes (Gitea's payloads are a few KiB; an issue
body is cut to 8,000 characters anyway)."""

MAX_CONNECTIONS = 16
"""Connections at once (Gitea sends its deliveries one after the other): with
:data:`MAX_BODY`, at most 80 MiB of bodies held."""


STATUS = {"applied": 200, "duplicate": 200, "ignored": 202, "invalid": 400, "failed": 500}
"""The HTTP status of each outcome of a delivery (a ``busy`` failure is 503: retry soon)."""


def status_of(outcome: Outcome) -> int:
    """The HTTP status Gitea is answered with for ``outcome``."""
    return 503 if outcome.busy else STATUS.get(outcome.outcome, 500)


def _log(status: int, outcome: Outcome, headers: Mapping[str, str]) -> None:
    """One line per delivery answered: status, outcome, event, delivery id, detail."""
    log.info(
        "forge: %s %s, event %s, delivery %s: %s",
        status,
        outcome.outcome,
        one_line(event_of(headers) or "(none)", 40),
        one_line(outcome.delivery or "-", 100),
        one_line(outcome.detail, 200),
    )


def limits(max_body: int | None = None, **others: Any) -> Limits:
    """The webhook's limits: :data:`MAX_BODY` (or ``max_body``) and :data:`MAX_CONNECTIONS`,
    the others as given (tests shorten the timeouts)."""
    return replace(Limits(max_body=max_body or MAX_BODY, max_connections=MAX_CONNECTIONS), **others)


def create_app(ws: Workspace, secret: str) -> Starlette:
    """The webhook application for workspace ``ws`` and the shared ``secret``; served
    with :func:`teamdeck.listen.server_config` and :func:`limits`, which bound its body."""
    one_at_a_time = threading.Lock()

    def handle(headers: Mapping[str, str], body: bytes) -> Outcome:
        with one_at_a_time:
            try:
                outcome = receive(ws, headers, body)
            except Exception:  # one broken delivery must not stop the server (logged with its traceback)
                log.exception("forge: unexpected error in a delivery")
                return Outcome("failed", "internal error (logged by the server); nothing else was affected")
        _log(status_of(outcome), outcome, headers)
        return outcome

    async def hook(request: Request) -> JSONResponse:
        body = await request.body()  # bounded in size and time by the server's limits (listen.py)
        if not signed(secret, request.headers, body):
            refused = Outcome(
                "unauthorized", "the signature does not match the body and the secret; nothing was written"
            )
            _log(401, refused, request.headers)
            return JSONResponse(refused.to_json(), status_code=401)
        outcome = await run_in_threadpool(handle, dict(request.headers), body)
        return JSONResponse(outcome.to_json(), status_code=status_of(outcome))

    async def health(_request: Request) -> JSONResponse:
        return JSONResponse({"ok": True})

    return Starlette(
        routes=[
            Route("/hook", hook, methods=["POST"]),
            Route("/", hook, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
        ]
    )


def parse_listen(text: str) -> tuple[str, int]:
    """``127.0.0.1:8787`` / ``[::1]:8787`` → host and port.

    Raises:
        ValueError: not HOST:PORT with a port in 1-65535 (0: any free port).
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"'{text}' is not HOST:PORT (e.g. 127.0.0.1:8787)")
    return host.strip("[]"), int(port)
