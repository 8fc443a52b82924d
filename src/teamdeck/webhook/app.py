"""``teamdeck forge serve``: Gitea webhooks over HTTP.

``POST /hook`` (also ``POST /``) takes one delivery: the body is read from the stream
with a cap (a declared or actual size over the limit is 413 before more is read, so a
50 MB body is never buffered) and a deadline (a body still incomplete after
:data:`BODY_TIMEOUT_S` is 408: a client trickling bytes cannot hold a connection), its
signature is checked (webhook/signature.py: 401 and nothing written when it does not
match), then the protocol's :func:`receive` deduplicates and applies it in a worker
thread, one delivery at a time. Its outcome is the answer, with the status
:func:`status_of` gives it (200 applied or duplicate, 202 ignored, 400 invalid, 500
failed, 503 busy: the HTTP side of a delivery lives here).
A bug in one delivery is a 500 and a logged traceback; the server keeps serving.
``GET /health`` answers 200 for probes.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Mapping

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from teamdeck.protocol.forge.deliveries import Outcome, event_of, receive
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line
from teamdeck.webhook.signature import signed

log = logging.getLogger("teamdeck.forge")

MAX_BODY = 5 * 1024 * 1024
"""The largest delivery accepted, in bytes (Gitea's payloads are a few KiB; an issue
body is cut to 8,000 characters anyway)."""


BODY_TIMEOUT_S = 10.0
"""How long a client may take to send the whole body (Gitea sends a few KiB at once)."""


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


def _too_slow(limit: float) -> JSONResponse:
    detail = f"the body did not arrive within {limit:g} s; nothing was written"
    return JSONResponse(Outcome("timeout", detail).to_json(), status_code=408, headers={"Connection": "close"})


def _too_large(limit: int) -> JSONResponse:
    detail = f"the body is larger than {limit:,} bytes; nothing was written"
    return JSONResponse(Outcome("too-large", detail).to_json(), status_code=413)


def create_app(
    ws: Workspace, secret: str, *, max_body: int = MAX_BODY, body_timeout: float = BODY_TIMEOUT_S
) -> Starlette:
    """The webhook application for workspace ``ws`` and the shared ``secret``."""
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
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_body:
            return _too_large(max_body)
        body = bytearray()
        try:
            async with asyncio.timeout(body_timeout):
                async for chunk in request.stream():
                    body += chunk
                    if len(body) > max_body:
                        return _too_large(max_body)
        except TimeoutError:
            return _too_slow(body_timeout)
        if not signed(secret, request.headers, bytes(body)):
            refused = Outcome(
                "unauthorized", "the signature does not match the body and the secret; nothing was written"
            )
            _log(401, refused, request.headers)
            return JSONResponse(refused.to_json(), status_code=401)
        outcome = await run_in_threadpool(handle, dict(request.headers), bytes(body))
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
