"""``teamdeck serve --listen``: the stream over WebSocket behind a bearer token, refused
without one beyond loopback, and 200 concurrent readers on one workspace held in
bounded memory (one hub, one state for all of them, no queue per reader)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from support.locations import DEMO
from support.slow_clients import HALF_HEAD, all_closed_within, open_sockets

from teamdeck.listen import HEAD_TIMEOUT_S

pytestmark = pytest.mark.slow

GATE = "task:checkout-api:g-api-dev-1"
READERS = 200


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return int(next(line for line in status if line.startswith("VmRSS")).split()[1]) / 1024


class Listener:
    def __init__(self, root: Path, *, token: str | None) -> None:
        self.port = free_port()
        self.url = f"ws://127.0.0.1:{self.port}/stream"
        env = {**os.environ, "STREAM_TOKEN": token or ""}
        extra = ["--token-env", "STREAM_TOKEN"] if token else ["--no-token"]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "teamdeck", "-w", str(root), "serve", "--listen", f"127.0.0.1:{self.port}", *extra],
            env=env,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        said = self.process.stderr.readline()
        assert said.startswith("teamdeck: the stream of") and self.url in said, said

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(DEMO, root)
    return root


@pytest.fixture
def guarded(workspace: Path) -> Iterator[Listener]:
    listener = Listener(workspace, token="s3cret-token")
    yield listener
    listener.stop()


async def opened(url: str, **headers: str) -> Any:
    """A connection that has said hello and read the server's hello and first state."""
    connection = await websockets.connect(url, additional_headers=headers, max_size=None)
    await connection.send(json.dumps({"frame": "hello", "protocol": 1}))
    assert json.loads(await connection.recv())["frame"] == "hello"
    state = json.loads(await connection.recv())
    assert state["frame"] == "state" and state["full"]
    return connection


def test_a_missing_or_wrong_token_is_refused_before_anything_is_served(guarded: Listener, workspace: Path) -> None:
    async def main() -> None:
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret-token"}):
            with pytest.raises(websockets.InvalidStatus) as refused:
                await websockets.connect(guarded.url, additional_headers=headers)
            assert refused.value.response.status_code == 403
        connection = await opened(guarded.url, Authorization="Bearer s3cret-token")
        request = {
            "frame": "request",
            "id": "ws-request-0001",
            "op": "answer",
            "args": {"key": GATE, "answer": "approve"},
        }
        await connection.send(json.dumps(request))
        while (frame := json.loads(await asyncio.wait_for(connection.recv(), 20)))["frame"] != "result":
            pass
        assert frame["ok"] and frame["id"] == "ws-request-0001"
        await connection.close()

    asyncio.run(main())
    assert '"gate.approved"' in (workspace / "tasks" / "checkout-api" / "events.jsonl").read_text()


@pytest.mark.parametrize(
    ("host", "named"),
    [("0.0.0.0", ("reachable from other machines", "--token-env")), ("127.0.0.1", ("--token-env", "--no-token"))],
    ids=["beyond-loopback", "loopback"],
)
def test_b30_a_listener_without_a_token_does_not_start(workspace: Path, host: str, named: tuple[str, str]) -> None:
    """B30: on loopback the stream asked no token: any process of any user of the
    machine could read it and answer its decisions. Beyond it a token was required already."""
    done = subprocess.run(
        [sys.executable, "-m", "teamdeck", "-w", str(workspace), "serve", "--listen", f"{host}:{free_port()}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert all(words in done.stderr for words in named), done.stderr


def test_b30_handshakes_that_never_end_are_closed_in_time_and_readers_still_served(guarded: Listener) -> None:
    """B30: a handshake whose head never ended held its connection forever; now it is
    closed at the head timeout, and a reader with the token is served meanwhile."""
    started = time.monotonic()
    with open_sockets(guarded.port, 50, HALF_HEAD) as heads:

        async def main() -> None:
            connection = await opened(guarded.url, Authorization="Bearer s3cret-token")
            await connection.close()

        asyncio.run(main())
        assert all_closed_within(heads, HEAD_TIMEOUT_S + 3) == [b""] * len(heads)
    assert time.monotonic() - started < HEAD_TIMEOUT_S + 3


def test_200_readers_on_one_workspace_stay_bounded_in_memory(workspace: Path) -> None:
    """200 connections read the first state; then 50 changes while none of them reads:
    queued, that would be 200 x 50 states (~20 KB each); the server holds one."""
    listener = Listener(workspace, token=None)
    inbox = workspace / "teams" / "quant" / "inboxes" / "zhangfei-dev.json"

    async def main() -> tuple[float, float, float]:
        first = await opened(listener.url)
        alone = rss_mb(listener.process.pid)
        readers = await asyncio.gather(*[opened(listener.url) for _ in range(READERS)])
        connected = rss_mb(listener.process.pid)
        for number in range(50):
            entries = json.loads(inbox.read_text())
            entries.append({"from": "team-lead", "text": f"change {number}", "timestamp": "2026-03-01T12:00:00.000Z"})
            inbox.write_text(json.dumps(entries))
            await asyncio.sleep(0.02)
        await asyncio.sleep(2)
        unread = rss_mb(listener.process.pid)
        # Each reader, reading now, gets the newest state: the 50th change.
        for reader in readers[:5]:
            unread_count = 0
            while unread_count < 50:
                frame = json.loads(await asyncio.wait_for(reader.recv(), 20))
                teams = frame.get("state", {}).get("teams")
                if teams:
                    unread_count = next(team["unread"] for team in teams if team["name"] == "quant") - 7
        for connection in [first, *readers]:
            await connection.close()
        return alone, connected, unread

    try:
        alone, connected, unread = asyncio.run(main())
    finally:
        listener.stop()
    print(
        f"server RSS: 1 reader {alone:.0f} MB, {READERS} readers {connected:.0f} MB, after 50 unread changes {unread:.0f} MB"
    )
    assert connected - alone < 64, "each reader should cost a subscriber, not a copy of the workspace"
    assert unread - connected < 20, "changes nobody read were queued"
