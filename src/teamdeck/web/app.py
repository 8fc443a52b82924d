"""``teamdeck web``'s server: the pages (web/pages.py) over the hosts' links, an event
stream that pushes a page's live regions when a host's state changes, and the forms
that answer, message and broadcast through the same requests as the hosts TUI (each
recorded as done by ``human:web:<who>``).

Reading works without JavaScript: every page is whole HTML, and every form is a plain
POST answered with a redirect. With it, web/static/app.js opens ``/events`` for the
page it shows and swaps in each region it is sent: the server renders the HTML, the
browser only places it.

Nothing is shown optimistically, as in the TUI: an answered decision leaves the queue
when its host's next state says so.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Route

from teamdeck.errors import NotFound, TeamdeckError
from teamdeck.model.hosts import Host
from teamdeck.remote.link import Link
from teamdeck.resources import data_dir
from teamdeck.web.access import SECURITY_HEADERS, Access, Session, write_refusal
from teamdeck.web.pages import Hosts, build_page
from teamdeck.web.render import href, render

log = logging.getLogger(__name__)

MAX_FORM_BYTES = 64 * 1024
"""The largest form taken (a message is at most 10,000 characters)."""
MAX_STREAMS = 32
"""Open event streams at once (each is a page left open); one more is refused (503)."""
KEEPALIVE_S = 15.0
"""A comment line this often keeps an idle stream open through proxies and tunnels."""
ANSWERED_WAIT_S = 3.0
"""How long an answer's redirect waits for the host's state to drop the decision."""
FIRST_STATE_S = 10.0
"""The longest the server waits for the hosts' first states before it takes requests."""
STATIC = {"app.js": "text/javascript", "app.css": "text/css"}


class Changes:
    """A counter of the hosts' changes, bumped from the links' threads, that the event
    streams wait on: a stream that wakes renders the newest, so changes that came
    meanwhile share one update."""

    def __init__(self) -> None:
        self.version = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None

    def attach(self) -> None:
        """Bind to the server's loop (at its start)."""
        self._loop = asyncio.get_running_loop()
        self._event = asyncio.Event()

    def bump(self, link: Link) -> None:
        """A link changed (from its thread)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._bumped)

    def _bumped(self) -> None:
        assert self._event is not None
        self.version += 1
        self._event.set()
        self._event = asyncio.Event()

    async def after(self, version: int, timeout: float) -> int:
        """The version once it is past ``version`` (at most ``timeout`` seconds)."""
        assert self._event is not None
        if self.version == version:
            try:
                await asyncio.wait_for(self._event.wait(), timeout)
            except TimeoutError:
                pass
        return self.version


def create_app(served: list[Host], access: Access, *, who: str, read_only: bool = False) -> Starlette:
    """The ASGI app of ``teamdeck web`` over a link to each of ``served`` (started and
    stopped with the app).

    Args:
        access: the token and sessions (web/access.py).
        who: the person, recorded as ``human:web:<who>`` on every write.
        read_only: show no form and take no write.
    """
    changes = Changes()
    links = [Link(host, on_change=changes.bump) for host in served]
    hosts = Hosts(links, read_only=read_only)
    actor = f"human:web:{who}"
    streams = {"open": 0}

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        changes.attach()
        for link in links:
            link.start()
        await run_in_threadpool(_wait_first, links)
        try:
            yield
        finally:
            await run_in_threadpool(_stop_all, links)

    async def show(request: Request) -> Response:
        token = request.query_params.get("token")
        if token is not None:
            return _exchange(request, access, token)
        session = access.session_of(request)
        if session is None:
            return _unauthorized()
        try:
            page = await run_in_threadpool(build_page, hosts, request.url.path, dict(request.query_params))
        except TeamdeckError as err:
            return _html(
                render("problem.html", title="Not here", text=str(err)), 404 if isinstance(err, NotFound) else 400
            )
        shared = _shared(session, read_only)
        regions = await run_in_threadpool(lambda: [(region, region.html(shared)) for region in page.regions])
        view = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return _html(render("page.html", title=page.title, view=view, regions=regions, flash=session.told(), **shared))

    async def events(request: Request) -> Response:
        session = access.session_of(request)
        if session is None:
            return _unauthorized()
        view = urlsplit(request.query_params.get("view", "/"))
        params = dict(parse_qsl(view.query))
        if streams["open"] >= MAX_STREAMS:
            return Response("too many open pages", 503, headers=SECURITY_HEADERS)

        async def regions() -> AsyncIterator[str]:
            streams["open"] += 1
            drawn: dict[str, tuple[Mapping[str, Any], str]] = {}
            version = -1
            try:
                while True:
                    seen = await changes.after(version, KEEPALIVE_S) if version >= 0 else changes.version
                    if seen == version:
                        yield ": still here\n\n"
                        continue
                    version = seen
                    fresh = await run_in_threadpool(_live_regions, hosts, view.path, params, session, drawn)
                    if fresh:
                        yield f"event: regions\ndata: {json.dumps(fresh)}\n\n"
            finally:
                streams["open"] -= 1

        headers = {**SECURITY_HEADERS, "x-accel-buffering": "no"}
        return StreamingResponse(regions(), media_type="text/event-stream", headers=headers)

    async def act(request: Request) -> Response:
        session = access.session_of(request)
        if session is None:
            return _unauthorized()
        form = await _form(request)
        if form is None:
            return _html(render("problem.html", title="Too large", text="that form is too large"), 413)
        refusal = write_refusal(request, session, form)
        if refusal is None and read_only:
            refusal = "this page is read-only (teamdeck web --read-only); nothing was done"
        if refusal is not None:
            return _html(render("problem.html", title="Refused", text=refusal), 403)
        try:
            op, args, back = _request_of(request.url.path, form)
            link = hosts.link(form.get("host", ""))
        except TeamdeckError as err:
            return _html(render("problem.html", title="Refused", text=str(err)), 400)
        reply = await run_in_threadpool(lambda: link.ask(op, args, by=actor))
        if op == "answer" and reply.ok:
            await run_in_threadpool(_until_left, link, str(args["key"]))
        severity = "done" if reply.ok else "unknown" if reply.unknown else "refused"
        session.tell(severity, f"{link.host.name}: {reply.text}")
        return RedirectResponse(back, 303, headers=SECURITY_HEADERS)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("not found", 404, headers=SECURITY_HEADERS)
        return FileResponse(data_dir("web") / "static" / name, media_type=STATIC[name], headers=SECURITY_HEADERS)

    routes = [
        Route("/", show),
        Route("/answer", show, methods=["GET"]),
        Route("/answer", act, methods=["POST"]),
        Route("/member", show),
        Route("/run", show),
        Route("/message", act, methods=["POST"]),
        Route("/broadcast", act, methods=["POST"]),
        Route("/events", events),
        Route("/static/{name}", static),
        Route("/favicon.ico", lambda request: Response(status_code=204, headers=SECURITY_HEADERS)),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def _wait_first(links: list[Link]) -> None:
    """Until every host sent its first state or failed (the slowest sets the wait, at
    most :data:`FIRST_STATE_S`): the first page shows what is there, not "connecting"."""
    deadline = time.monotonic() + FIRST_STATE_S
    for link in links:
        link.wait_first(max(0.0, deadline - time.monotonic()))


def _until_left(link: Link, key: str) -> None:
    """Until the host's state no longer lists decision ``key`` (at most
    :data:`ANSWERED_WAIT_S`): the page a form goes back to shows the queue the answer
    left, also without JavaScript, and still nothing but what the host says."""
    deadline = time.monotonic() + ANSWERED_WAIT_S
    while time.monotonic() < deadline:
        if not any(isinstance(gate, dict) and gate.get("key") == key for gate in link.state.get("gates") or []):
            return
        time.sleep(0.02)


def _stop_all(links: list[Link]) -> None:
    for link in links:
        link.stop()


def _live_regions(
    hosts: Hosts,
    path: str,
    params: Mapping[str, str],
    session: Session,
    drawn: dict[str, tuple[Mapping[str, Any], str]],
) -> dict[str, str]:
    """The live regions of the page at ``path`` whose HTML differs from what this stream
    sent (``drawn``: each region's last context and HTML, updated here). A region given
    the same context as last time is not drawn again: a message read changes the hosts
    line and the roster, not the 250 decisions of the queue (the same objects, compared at
    once)."""
    try:
        page = build_page(hosts, path, params)
    except TeamdeckError as err:
        log.info("the page %s cannot be drawn: %s", path, err)
        return {}
    shared = _shared(session, hosts.read_only)
    fresh = {}
    for region in page.regions:
        if not region.live:
            continue
        before = drawn.get(region.name)
        if before is not None and before[0] == region.context:
            continue
        html = region.html(shared)
        drawn[region.name] = (region.context, html)
        if before is None or before[1] != html:
            fresh[region.name] = html
    return fresh


def _shared(session: Session, read_only: bool) -> dict[str, Any]:
    """What every region is given: the session's CSRF token for its forms, and whether
    forms are shown at all."""
    return {"csrf": session.csrf or "", "read_only": read_only}


def _request_of(path: str, form: Mapping[str, str]) -> tuple[str, dict[str, Any], str]:
    """The op a form asks for, its arguments, and the page to go back to."""
    host = form.get("host", "")
    if path == "/answer":
        args = {"key": form.get("key", ""), "answer": form.get("action", ""), "note": form.get("note") or None}
        return "answer", args, "/"
    member_page = href("/member", host=host, team=form.get("team"), member=form.get("member"))
    summary = form.get("summary", "")
    if path == "/message":
        return (
            "message",
            {
                "team": form.get("team", ""),
                "member": form.get("member", ""),
                "text": form.get("text", ""),
                "summary": summary,
            },
            member_page,
        )
    return "broadcast", {"team": form.get("team", ""), "text": form.get("text", ""), "summary": summary}, member_page


async def _form(request: Request) -> dict[str, str] | None:
    """The URL-encoded form of a POST, or None when it is larger than :data:`MAX_FORM_BYTES`."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


def _exchange(request: Request, access: Access, token: str) -> Response:
    """The printed address opened: a session for the right token, a 401 for another."""
    if not access.token_matches(token):
        return _unauthorized()
    session_id, _ = access.open_session()
    response = RedirectResponse(request.url.path, 303, headers=SECURITY_HEADERS)
    response.headers["set-cookie"] = access.cookie_header(session_id)
    return response


def _unauthorized() -> Response:
    text = "Open the address teamdeck web printed when it started (it carries the token), or send the bearer token."
    return _html(render("problem.html", title="Unauthorized", text=text), 401)


def _html(body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(body, status, headers=SECURITY_HEADERS)
