"""Driving ``teamdeck mcp`` from tests with the MCP SDK's own client: over stdio (the
server a subprocess the client starts) and over streamable HTTP (a server subprocess
on a free loopback port). Everything has a timeout: a test can fail, never hang.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace

TEAM = "alpha"
TOKEN_VAR = "TEAMDECK_TEST_MCP_TOKEN"
CALL_TIMEOUT_S = 60
START_TIMEOUT_S = 30


def make_workspace(root: Path) -> Workspace:
    """Team ``alpha`` (team-lead, coder, reviewer) and task ``t1``, approved, of that team."""
    root.mkdir(parents=True, exist_ok=True)
    ws = Workspace.at(root, actor="human:tester")
    create_team(ws, TEAM, description="the parser team")
    add_member(ws, TEAM, "coder")
    add_member(ws, TEAM, "reviewer")
    create_task(ws, "t1", "Build the parser", team=TEAM, state="approved")
    return ws


def server_args(root: Path, member: str, *extra: str, team: str = TEAM) -> list[str]:
    return ["-m", "teamdeck", "mcp", "--workspace", str(root), "--team", team, "--as", member, *extra]


def server_env(**extra: str) -> dict[str, str]:
    return {**os.environ, "TEAMDECK_WORKSPACE": "", **extra}


@asynccontextmanager
async def stdio_session(root: Path, member: str, *, team: str = TEAM) -> AsyncIterator[ClientSession]:
    """A client session with ``teamdeck mcp --team team --as member`` started over stdio."""
    params = StdioServerParameters(command=sys.executable, args=server_args(root, member, team=team), env=server_env())
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT_S) as session:
            await session.initialize()
            yield session


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def http_server(root: Path, member: str, *, token: str | None = None) -> Iterator[str]:
    """``teamdeck mcp --as member --http 127.0.0.1:<free port>`` running, with ``token``
    (else ``--no-token``); yields its URL. Stopped with SIGTERM (as a service manager
    would) on the way out."""
    with http_server_process(root, member, token=token) as (url, _proc):
        yield url


@contextmanager
def http_server_process(
    root: Path, member: str, *, token: str | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """:func:`http_server`, yielding its process too."""
    port = free_port()
    extra = ["--http", f"127.0.0.1:{port}", *(["--token-env", TOKEN_VAR] if token else ["--no-token"])]
    env = server_env(**({TOKEN_VAR: token} if token else {}))
    proc = subprocess.Popen(
        [sys.executable, *server_args(root, member, *extra)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # it prints where it serves once it accepts requests (its heartbeat is written by then)
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if not first.startswith("teamdeck: MCP tools as"):
            proc.wait(timeout=START_TIMEOUT_S)
            raise AssertionError(f"the server exited with {proc.returncode}: {first}{proc.stderr.read()}")
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        proc.terminate()
        try:
            _out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
            raise
        assert proc.returncode == 128 + 15 and "Traceback" not in err, (proc.returncode, err)


@asynccontextmanager
async def http_session(url: str, token: str | None = None) -> AsyncIterator[ClientSession]:
    """A client session with the server at ``url`` over streamable HTTP."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(CALL_TIMEOUT_S)) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT_S) as session:
                await session.initialize()
                yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; its structured result."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, (tool, result.content)
    assert result.structured_content is not None, tool
    return result.structured_content


async def refused(session: ClientSession, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail; its one-line error text."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, (tool, result.structured_content)
    text = "".join(getattr(block, "text", "") for block in result.content)
    assert "\n" not in text and "Traceback" not in text, text
    return text


def workspace_bytes(root: Path, *, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """Every file's digest, except lock files (a lock's holder record changes with every
    locked attempt, by design) and paths under ``skip``."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and not path.name.endswith(".lock")
        and not any(str(path.relative_to(root)).startswith(prefix) for prefix in skip)
    }


class WaitTimings(dict[str, float]):
    """What :func:`time_waits` measured, in seconds: ``idle`` (list_agents alone),
    ``loaded`` (list_agents with the waits asleep) and ``wait`` (a 2 s wait_for_agent
    among them), with ``result`` the last wait's answer."""

    result: dict[str, Any]


async def time_waits(root: Path, waiters: int) -> WaitTimings:
    """C18's scenario, shared by its test (tests/e2e/test_mcp_load.py) and its bench row
    (bench/rows_reliability.py): ``waiters`` calls of wait_for_agent asleep at once, then
    list_agents and a wait with a 2 s timeout, each timed."""
    timings = WaitTimings()
    async with stdio_session(root, "team-lead") as lead:
        started = time.monotonic()
        await call(lead, "list_agents")
        timings["idle"] = time.monotonic() - started

        async def wait() -> None:
            await call(lead, "wait_for_agent", member="coder", timeout_s=30)

        async with anyio.create_task_group() as waits:
            for _ in range(waiters):
                waits.start_soon(wait)
            await anyio.sleep(3)  # every wait has started and is asleep
            started = time.monotonic()
            await call(lead, "list_agents")
            timings["loaded"] = time.monotonic() - started
            started = time.monotonic()
            timings.result = await call(lead, "wait_for_agent", member="reviewer", timeout_s=2)
            timings["wait"] = time.monotonic() - started
            waits.cancel_scope.cancel()
    return timings
