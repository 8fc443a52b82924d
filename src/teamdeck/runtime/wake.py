"""What every agent-CLI runtime gives a woken member, whichever CLI runs it: its prompt
(the work it is woken for) and teamdeck's MCP server acting as that member.

Shared by the runtimes that run a member as a headless session of an agent CLI
(runtime/claude/headless.py, runtime/ripperdoc/headless.py), so a member reads the same
prompt and has the same tools whichever CLI it runs in:

- **The prompt**: a headless session never polls the member's mailbox, so what is unread
  must be in the prompt: the roster ``prompt`` on the session's first run (what
  ``create_agent`` gave it), then each unread message's ``<teammate-message>`` block, as
  ``teamdeck inbox --inject`` prints them; a wake with nothing unread still says so (the
  CLIs refuse an empty prompt).
- **The MCP config**: ``mcp.json`` in the run's directory (``{"mcpServers": {"teamdeck":
  ...}}``, the shape both CLIs read), starting ``teamdeck mcp --team T --as M`` with the
  runner's own Python; the member's replies (``message_agent``, ``report_to_parent``...)
  go through it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

from teamdeck.runtime.spec import RunRequest

MCP_SERVER = "teamdeck"
"""The name teamdeck's MCP server has in the session: its tools are ``mcp__teamdeck__*``."""
MCP_CONFIG = "mcp.json"
"""Written in the run's directory: the session's MCP config."""
MCP_TOOLS = (
    "list_agents", "read_agent_conversation", "create_agent", "delegate", "message_agent", "wait_for_agent",
    "report_to_parent", "request_decision", "get_decision", "read_inbox",
)  # fmt: skip
"""The tools teamdeck's MCP server offers (teamdeck/mcp_server/tools.py declares them; a
unit test holds the two lists equal), for a CLI that allows MCP tools only by their full
names (``mcp__teamdeck__message_agent``): the runtime layer is below the server's."""
NOTHING_UNREAD = "You have no unread messages. Carry on with your work, or stop if it is done."
"""The prompt of a run woken with nothing unread (the CLIs refuse an empty prompt)."""


def prompt_of(request: RunRequest) -> str:
    """The session's prompt: the roster prompt on the member's first run, then each
    unread message's ``<teammate-message>`` block, one per line as ``inbox --inject``
    prints them."""
    first = [request.prompt] if request.session_id is None and request.prompt.strip() else []
    blocks = "\n".join(message.block for message in request.messages)
    return "\n\n".join([*first, *([blocks] if blocks else [])]) or NOTHING_UNREAD


def mcp_tool_names() -> tuple[str, ...]:
    """Every tool of teamdeck's MCP server as the session names it (``mcp__teamdeck__<tool>``)."""
    return tuple(f"mcp__{MCP_SERVER}__{tool}" for tool in MCP_TOOLS)


def write_mcp_config(request: RunRequest, env: Mapping[str, str] | None = None) -> Path:
    """``mcp.json`` in the run's directory: teamdeck's MCP server acting as the member,
    run by this Python (the CLI starts it without the runner's shell). ``env``: variables
    the CLI sets for the server (for a CLI that starts it with a minimal environment)."""
    server: dict[str, object] = {
        "command": sys.executable,
        "args": ["-m", "teamdeck", "mcp", "--workspace", str(request.workspace), "--team", request.team]
        + ["--as", request.member],
    }
    if env:
        server["env"] = dict(env)
    path = request.run_dir / MCP_CONFIG
    path.write_text(json.dumps({"mcpServers": {MCP_SERVER: server}}, indent=2) + "\n", encoding="utf-8")
    return path
