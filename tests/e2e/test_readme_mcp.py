"""The README's ``.mcp.json`` and ``claude mcp add`` examples work after ``make``.

Claude Code starts an MCP server without the user's shell PATH: the README's bare
``"command": "teamdeck"`` failed with FileNotFoundError when teamdeck was installed
into the clone's .venv. Here each example is taken from the README as written,
``/path/to/teamdeck`` becomes this clone and ``/path/to/ws`` a workspace, and the
server is started the way Claude Code would, with a PATH that has no .venv on it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from support.locations import REPO
from support.mcp_clients import make_workspace

from teamdeck.mcp_server.tools import TOOLS as DECLARED

TOOLS = {tool.name: tool.description for tool in DECLARED}

README = (REPO / "README.md").read_text(encoding="utf-8")
SECTION = README.split("## Agents as MCP clients", 1)[1].split("\n## ", 1)[0]
BARE_PATH = "/usr/bin:/bin"
"""What a process started by another program may get: no .venv/bin on it."""


def _placed(text: str, ws: Path) -> str:
    return text.replace("/path/to/teamdeck", str(REPO)).replace("/path/to/ws", str(ws))


def _mcp_json(ws: Path) -> dict[str, dict]:
    block = re.search(r"```json\n(.*?)```", SECTION, re.S)
    assert block, "the README shows a .mcp.json"
    return json.loads(_placed(block.group(1), ws))["mcpServers"]


def _claude_mcp_add(ws: Path) -> list[str]:
    line = next(line for line in SECTION.splitlines() if line.startswith("claude mcp add teamdeck-coder --scope"))
    words = shlex.split(_placed(line, ws))
    return words[words.index("--") + 1 :]


async def _tools(command: str, args: list[str]) -> list[str]:
    params = StdioServerParameters(command=command, args=args, env={"PATH": BARE_PATH, "HOME": os.environ["HOME"]})
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]


def test_the_mcp_json_example_starts_every_server_without_the_venv_on_path(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    make_workspace(ws)
    servers = _mcp_json(ws)
    assert set(servers) == {"teamdeck-lead", "teamdeck-coder", "teamdeck-reviewer"}
    for name, server in servers.items():
        assert anyio.run(_tools, server["command"], server["args"]) == list(TOOLS), name


def test_the_claude_mcp_add_example_names_the_same_launcher(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    make_workspace(ws)
    command, *args = _claude_mcp_add(ws)
    assert command == _mcp_json(ws)["teamdeck-coder"]["command"]
    assert anyio.run(_tools, command, args) == list(TOOLS)
