"""``teamdeck mcp --http``: the SDK's streamable HTTP client on loopback, the bearer
token, the heartbeat the roster shows, and the issue's end-to-end run - a coordinator
and a worker, each its own server, and a person deciding with the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
import pytest
from support.mcp_clients import (
    TEAM,
    call,
    http_server,
    http_session,
    make_workspace,
    server_args,
    server_env,
    workspace_bytes,
)

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
