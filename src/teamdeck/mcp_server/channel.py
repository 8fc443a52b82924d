"""``teamdeck mcp --channel``: the member's tools, plus a channel into its running session.

Claude Code 2.1.332 (what the binary does, tests/conformance/test_claude_code_channel.py):

- A server that declares the experimental capability ``claude/channel`` may push
  ``notifications/claude/channel`` ``{content, meta}``; the session shows it and takes
  it as its next turn, as ``<channel source="SERVER" k="v"...>content</channel>`` in a
  user message. With ``claude/channel/permission`` too, the session relays each
  permission prompt as ``notifications/claude/channel/permission_request``
  ``{request_id, tool_name, description, input_preview}`` and takes
  ``notifications/claude/channel/permission`` ``{request_id, behavior}`` back (the
  first answer, terminal or channel, wins).
- Only on the handshake protocol era: a connection that negotiated 2026-07-28 is
  skipped ("no unsolicited notification path"), so this server speaks the
  ``initialize`` handshake only (the SDK's ``serve_loop``), over stdio.
- Only in the interactive client, for servers named by ``--channels`` (or
  ``--dangerously-load-development-channels server:NAME``), and only where the
  account's feature flags allow it (README, "Channels").

So while a session is attached: every unread entry of the member's inbox (a message,
a decision's answer, a shutdown request) is pushed once and then marked read (the
inbox stays the record; protocol/team/sessions.py records the push); every permission prompt
is a ``session-permission`` decision in the queue, and a person's answer to it is
relayed back. The roster shows the member connected (a heartbeat, as ``--http``).
"""

from __future__ import annotations

import logging
import os
from typing import Any

import anyio
import mcp_types
from mcp.server.connection import Connection
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from pydantic import ConfigDict, Field

from teamdeck.errors import TeamdeckError
from teamdeck.mcp_server.heartbeat import announced, ended, keep_beating
from teamdeck.mcp_server.seat import Seat
from teamdeck.mcp_server.server import build_server
from teamdeck.protocol.team import channel_push, sessions
from teamdeck.protocol.team.session_log import Behavior
from teamdeck.watch_hub import wait_until

log = logging.getLogger(__name__)

CAPABILITIES: dict[str, dict[str, Any]] = {"claude/channel": {}, "claude/channel/permission": {}}
"""The experimental capabilities that make the client register the channel."""
PUSH = "notifications/claude/channel"
PERMISSION_REQUEST = "notifications/claude/channel/permission_request"
PERMISSION = "notifications/claude/channel/permission"
RECHECK_S = 30.0
"""How long the relay sleeps without a file change before looking again anyway."""

INSTRUCTIONS = (
    " While your session is attached, what teamdeck writes for you (your team's messages, a person's answers, "
    "shutdown requests) also arrives as a <channel> message whose from, kind and summary attributes say "
    "who sent it and what it is: it is the same message as in your inbox, delivered once."
)


class _PromptParams(mcp_types.NotificationParams):
    """``permission_request`` params as the client sends them (extra fields kept)."""

    model_config = ConfigDict(extra="allow")
    request_id: str = Field(alias="request_id")  # the SDK's params read camelCase aliases by default
    tool_name: str = Field(alias="tool_name")
    description: str = ""
    input_preview: str = Field(default="", alias="input_preview")


class Channel:
    """One attached session: its connection once initialised, and the permission
    requests it relayed to us (the answers we owe it)."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.connection: Connection | None = None
        self.attached = anyio.Event()
        self.requests: set[str] = set()
        self.relayed: set[str] = set()

    async def on_initialized(self, ctx: Any, _params: mcp_types.NotificationParams) -> None:
        self.connection = ctx.session._connection  # the connection's standalone outbound channel
        self.attached.set()

    async def on_prompt(self, _ctx: Any, params: _PromptParams) -> None:
        seat = self.seat
        self.requests.add(params.request_id)

        def record() -> None:
            sessions.record_prompt(
                seat.ws,
                seat.team,
                seat.member,
                tool=params.tool_name,
                tool_input=params.input_preview,
                description=params.description,
                source="channel",
                request_id=params.request_id,
            )

        try:
            await anyio.to_thread.run_sync(record)
        except TeamdeckError as err:  # the prompt stays in the terminal; say why it is not in the queue
            log.error("permission prompt %s of %s not queued: %s", params.request_id, seat.member, err)

    def _work(self) -> tuple[list[channel_push.ChannelItem], list[tuple[str, Behavior]]] | None:
        seat = self.seat
        items = channel_push.unpushed(seat.ws, seat.team, seat.member)
        answers = [
            (request_id, behavior)
            for request_id, behavior in channel_push.answers_to_relay(seat.ws, seat.team, self.requests)
            if request_id not in self.relayed
        ]
        return (items, answers) if items or answers else None

    async def relay(self) -> None:
        """Push and relay for as long as the session is attached."""
        await self.attached.wait()
        seat = self.seat
        watched = [channel_push.inboxes_dir(seat.ws, seat.team), seat.ws.sessions_dir]
        while True:
            for path in watched:
                path.mkdir(parents=True, exist_ok=True)
            work = await wait_until(watched, self._work, RECHECK_S)
            if work is None:
                continue
            items, answers = work
            await self._send(items, answers)

    async def _send(self, items: list[channel_push.ChannelItem], answers: list[tuple[str, Behavior]]) -> None:
        assert self.connection is not None
        seat = self.seat
        for request_id, behavior in answers:
            await self.connection.notify(PERMISSION, {"request_id": request_id, "behavior": behavior})
            self.relayed.add(request_id)
        for item in items:
            await self.connection.notify(PUSH, {"content": item.content, "meta": item.meta})
        if items:
            await anyio.to_thread.run_sync(lambda: channel_push.delivered(seat.ws, seat.team, seat.member, items))


async def serve(seat: Seat) -> None:
    """Serve ``seat``'s tools and channel over stdio until the client closes it."""
    server = build_server(seat, extra_instructions=INSTRUCTIONS)
    low = server._lowlevel_server  # MCPServer has no public hook for notification handlers
    channel = Channel(seat)
    low.add_notification_handler("notifications/initialized", mcp_types.NotificationParams, channel.on_initialized)
    low.add_notification_handler(PERMISSION_REQUEST, _PromptParams, channel.on_prompt)
    options = low.create_initialization_options(experimental_capabilities=CAPABILITIES)
    where = f"stdio channel of pid {os.getpid()}"  # the roster: "connected over MCP at ..."
    heartbeat = announced(seat, "stdio channel", where)
    try:
        async with stdio_server() as (read, write), low.lifespan(low) as state, anyio.create_task_group() as tasks:
            tasks.start_soon(channel.relay)
            if heartbeat is not None:
                tasks.start_soon(keep_beating, heartbeat)
            await serve_loop(low, read, write, lifespan_state=state, init_options=options)
            tasks.cancel_scope.cancel()
    finally:
        ended(heartbeat)
