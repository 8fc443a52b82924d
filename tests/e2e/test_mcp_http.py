"""``teamdeck mcp --http``: the SDK's streamable HTTP client on loopback, the bearer
token, the heartbeat the roster shows, and the issue's end-to-end run - a coordinator
and a worker, each its own server, and a person deciding with the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import httpx2
import pytest
from support.mcp_clients import (
    TEAM,
    call,
    http_server,
    http_server_process,
    http_session,
    make_workspace,
    server_args,
    server_env,
    workspace_bytes,
)
from support.slow_clients import HALF_HEAD, all_closed_within, open_sockets, partial_body

from teamdeck.listen import BODY_TIMEOUT_S, HEAD_TIMEOUT_S, MAX_BODY
from teamdeck.mcp_server.tools import TOOLS as DECLARED

TOOLS = {tool.name: tool.description for tool in DECLARED}

pytestmark = pytest.mark.slow

TOKEN = "s3cret-token-for-tests"
TIMEOUT_S = 120
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}


def heartbeat(root: Path, member: str) -> Path:
    return root / "teams" / TEAM / "connections" / f"{member}.json"


def test_end_to_end_coordinator_worker_and_a_person(tmp_path: Path) -> None:
    """The coordinator delegates over MCP; the worker asks for a decision; a person
    approves it with ``teamdeck gate approve``; the worker's waiting get_decision returns
    the note; the worker reports; the coordinator's waiting wait_for_agent returns it."""
    root = tmp_path / "ws"
    make_workspace(root)

    async def main() -> None:
        with (
            anyio.fail_after(TIMEOUT_S),
            http_server(root, "team-lead") as lead_url,
            http_server(root, "coder") as coder_url,
        ):
            async with http_session(lead_url) as lead, http_session(coder_url) as coder:
                assert [tool.name for tool in (await lead.list_tools()).tools] == list(TOOLS)
                await call(lead, "delegate", task="t1", member="coder")
                agents = {a["name"]: a for a in (await call(lead, "list_agents"))["agents"]}
                assert agents["coder"]["currentTask"]["id"] == "t1"
                assert agents["coder"]["connected"] == coder_url and agents["team-lead"]["connected"] == lead_url

                gate = (await call(coder, "request_decision", task="t1", reason="scope", questions=["JSON5?"]))["gate"]
                agents = {a["name"]: a for a in (await call(lead, "list_agents"))["agents"]}
                assert agents["coder"]["status"] == "awaiting"

                decision: dict = {}
                report: dict = {}

                async def worker_waits() -> None:
                    decision.update(await call(coder, "get_decision", task="t1", gate=gate, wait_s=60))

                async def coordinator_waits() -> None:
                    report.update(await call(lead, "wait_for_agent", member="coder", task="t1", timeout_s=60))

                async with anyio.create_task_group() as group:
                    group.start_soon(worker_waits)
                    group.start_soon(coordinator_waits)
                    await anyio.sleep(0.5)  # both are waiting now
                    approved = await anyio.to_thread.run_sync(
                        lambda: subprocess.run(
                            [sys.executable, "-m", "teamdeck", "--workspace", str(root), "gate", "approve", "t1", gate]
                            + ["--note", "plain JSON only"],
                            capture_output=True,
                            text=True,
                            env=server_env(),
                            timeout=60,
                        )
                    )
                    assert approved.returncode == 0, approved.stderr
                    with anyio.fail_after(30):
                        while not decision:
                            await anyio.sleep(0.05)
                    assert not report  # a decision is not a report: the coordinator still waits
                    assert (decision["status"], decision["note"]) == ("approved", "plain JSON only")
                    await call(coder, "report_to_parent", task="t1", status="completed", summary="parser done")
        assert report["event"] == "reported"
        assert (report["report"]["status"], report["report"]["summary"]) == ("completed", "parser done")

    anyio.run(main)
    assert not heartbeat(root, "coder").exists() and not heartbeat(root, "team-lead").exists()
    final = json.loads((root / "tasks" / "t1" / "agents" / "coder" / "artifacts" / "final.json").read_text())
    assert final["status"] == "completed"


def test_the_heartbeat_lives_while_the_server_serves(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    with http_server(root, "coder") as url:
        beat = json.loads(heartbeat(root, "coder").read_text())
        assert (beat["member"], beat["team"], beat["transport"], beat["url"]) == ("coder", TEAM, "streamable-http", url)
    assert not heartbeat(root, "coder").exists()


def test_a_wrong_or_missing_token_gets_401_and_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    with http_server(root, "team-lead", token=TOKEN) as url:
        before = workspace_bytes(root, skip=("teams/alpha/connections",))
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            answer = httpx2.post(
                url,
                json=INITIALIZE,
                headers={"Accept": "application/json, text/event-stream", **headers},
                timeout=30,
            )
            assert answer.status_code == 401, headers
            assert answer.headers["www-authenticate"].startswith("Bearer")

        async def main() -> None:
            with anyio.fail_after(TIMEOUT_S):
                async with http_session(url, TOKEN) as lead:
                    assert len((await lead.list_tools()).tools) == len(TOOLS)

        anyio.run(main)
        assert workspace_bytes(root, skip=("teams/alpha/connections",)) == before


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "example.org"])
def test_no_token_beyond_loopback_is_refused_at_start(tmp_path: Path, host: str) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    before = workspace_bytes(root)
    result = subprocess.run(
        [sys.executable, *server_args(root, "team-lead", "--http", f"{host}:8765")],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=60,
    )
    assert result.returncode != 0
    assert "--token-env" in result.stderr and "Traceback" not in result.stderr
    assert workspace_bytes(root) == before


def test_a_member_not_on_the_team_is_refused_at_start(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    result = subprocess.run(
        [sys.executable, *server_args(root, "stranger")],
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert "Unknown member 'stranger' in team 'alpha'" in result.stderr


def _rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return int(next(line for line in status if line.startswith("VmRSS")).split()[1]) / 1024


def test_b30_unfinished_heads_and_bodies_are_closed_in_time_in_bounded_memory(tmp_path: Path) -> None:
    """B30: heads that never ended and bodies that stopped half-way held their
    connections forever (1,100 took every file descriptor; partial 3 MB bodies took
    hundreds of MB). Now: a head within the head timeout, a body within the body timeout
    (408) and at most the body cap (413 as soon as it is declared or sent larger), and a
    session is served meanwhile."""
    root = tmp_path / "ws"
    make_workspace(root)
    with http_server_process(root, "coder", token=TOKEN) as (url, proc):
        port = urlsplit(url).port
        assert port is not None
        before = _rss_mb(proc.pid)
        started = time.monotonic()
        with (
            open_sockets(port, 20, HALF_HEAD) as heads,
            open_sockets(port, 8, partial_body(3_000_000, 2_000_000)) as large,
            open_sockets(port, 4, partial_body(MAX_BODY // 2, 100_000)) as slow,
        ):
            held = _rss_mb(proc.pid)

            async def main() -> None:
                with anyio.fail_after(TIMEOUT_S):
                    async with http_session(url, TOKEN) as lead:
                        assert len((await lead.list_tools()).tools) == len(TOOLS)

            anyio.run(main)
            assert all(answer.startswith(b"HTTP/1.1 413") for answer in all_closed_within(large, 5)), "over the cap"
            assert all_closed_within(heads, HEAD_TIMEOUT_S + 3) == [b""] * len(heads)
            assert HEAD_TIMEOUT_S - 1 < time.monotonic() - started < HEAD_TIMEOUT_S + 3
            assert all(answer.startswith(b"HTTP/1.1 408") for answer in all_closed_within(slow, BODY_TIMEOUT_S + 3))
        assert held - before < 40, (before, held)


@pytest.mark.parametrize(
    ("address", "flags", "said"),
    [
        ("127.0.0.1:8765", [], "--no-token"),  # loopback asks a token too, unless turned off by name
        ("0.0.0.0:8765", ["--no-token"], "loopback only"),
        ("127.0.0.1:8765", ["--no-token", "--token-env", "X"], "--no-token"),
    ],
)
def test_b30_without_a_token_only_no_token_on_loopback_starts(
    tmp_path: Path, address: str, flags: list[str], said: str
) -> None:
    """B30: MCP over HTTP on 127.0.0.1 asked no token: any process of any user of the
    machine could act as the member."""
    root = tmp_path / "ws"
    make_workspace(root)
    before = workspace_bytes(root)
    result = subprocess.run(
        [sys.executable, *server_args(root, "team-lead", "--http", address, *flags)],
        capture_output=True,
        text=True,
        env=server_env(X="x"),
        timeout=60,
    )
    assert result.returncode != 0 and said in result.stderr and "Traceback" not in result.stderr
    assert workspace_bytes(root) == before
