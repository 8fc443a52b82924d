"""``teamdeck serve --listen HOST:PORT``: the stream over WebSocket, at ``/stream``, one
hub (serve/hub.py) for every connection.

The frames are the stdio stream's (docs/serve.md), one per WebSocket text message. A
connection opens with the client's ``hello``; a listener serves the one workspace it
was started on, so a hello naming another is refused. Behind the bearer check of
listen.py (a token is required beyond loopback); a connection without the right token
is closed before it is accepted.

Each connection sends from a task of its own: woken (from the refresher's thread) when
a newer state is there, it takes the newest and waits for the client to take it, so a
slow client gets fewer, newer states and costs the server one subscriber, not a queue.
Results come from the action thread through a queue bounded by that client's own
requests.
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from teamdeck.serve.hub import Hub, Subscriber, greeting
from teamdeck.shapes import stream

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from teamdeck.store.workspace import Workspace

log = logging.getLogger(__name__)

PATH = "/stream"
"""Where the stream is served."""


def create_app(ws: Workspace, *, watch: bool = True) -> Starlette:
    """The ASGI app serving ``ws``'s stream (wrap it in listen.py's ``BearerAuth``)."""
    hub = Hub(ws, watch=watch)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.start()
        app.state.hub = hub
        try:
            yield
        finally:
            await run_in_threadpool(hub.stop)

    async def connection(websocket: WebSocket) -> None:
        await websocket.accept()
        await Connection(hub, websocket).serve()

    return Starlette(routes=[WebSocketRoute(PATH, connection)], lifespan=lifespan)


class Connection:
    """One WebSocket client of the hub."""

    def __init__(self, hub: Hub, websocket: WebSocket) -> None:
        self.hub = hub
        self.websocket = websocket
        self.loop = asyncio.get_running_loop()
        self.woken = asyncio.Event()
        self.results: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.message_number = 0

    async def serve(self) -> None:
        if not await self._handshake():
            await self.websocket.close()
            return
        subscriber = self.hub.subscribe(self._send_soon, self._wake)
        sender = asyncio.create_task(self._send(subscriber))
        try:
            while True:
                text = await self._receive()
                if text is None:
                    return
                # Taking a request writes its record (an fsync): off the loop every client shares.
                await run_in_threadpool(
                    self.hub.take_frame, subscriber, text.encode(), f"message {self.message_number}"
                )
        finally:
            self.hub.unsubscribe(subscriber)
            sender.cancel()

    async def _receive(self) -> str | None:
        """The next text message (None once the client has gone)."""
        try:
            message = await self.websocket.receive()
        except WebSocketDisconnect:
            return None
        if message["type"] == "websocket.disconnect":
            return None
        self.message_number += 1
        text = message.get("text")
        if text is None:  # a binary message: the stream is text
            data = message.get("bytes") or b""
            return data.decode(errors="replace")
        return str(text)

    async def _handshake(self) -> bool:
        text = await self._receive()
        if text is None:
            return False
        try:
            hello = stream.parse_hello(text.encode())
        except stream.FrameError as err:
            await self._put(stream.problem_frame(f"message 1: {err}"))
            return False
        answer = greeting(self.hub.ws, hello)
        for frame in answer:
            await self._put(frame)
        return len(answer) == 1

    def _wake(self) -> None:
        """A newer state is there (from the refresher's thread)."""
        self.loop.call_soon_threadsafe(self.woken.set)

    def _send_soon(self, frame: dict[str, Any]) -> None:
        """A result or a problem for this client, from any thread."""
        self.loop.call_soon_threadsafe(self.results.put_nowait, frame)
        self.loop.call_soon_threadsafe(self.woken.set)

    async def _send(self, subscriber: Subscriber) -> None:
        """Send results as they come and the newest state whenever there is a newer
        one; each send waits for the client (its own pace)."""
        try:
            while True:
                await self.woken.wait()
                self.woken.clear()
                while not self.results.empty():
                    await self._put(self.results.get_nowait())
                frame = await run_in_threadpool(subscriber.next_state)  # the first caller works the state out
                if frame is not None:
                    await self._put(frame)
        except (WebSocketDisconnect, RuntimeError):
            return  # the client went away

    async def _put(self, frame: dict[str, Any]) -> None:
        await self.websocket.send_text(stream.text_of(frame))
