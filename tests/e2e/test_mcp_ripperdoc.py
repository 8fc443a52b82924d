"""teamdeck's MCP tools on a Ripperdoc team (files Ripperdoc 0.6.2's own functions wrote,
tests/fixtures/ripperdoc/0.6.2/library-team/): a lead and a teammate, each its own
``teamdeck mcp`` over stdio, list the team, message each other, read and mark their
inboxes, all in Ripperdoc's shape."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
from support.mcp_clients import call, stdio_session

FIXTURE = Path(__file__).parents[1] / "fixtures" / "ripperdoc" / "0.6.2" / "library-team"
TEAM = "rd-team"
TIMEOUT_S = 120


def inbox(root: Path, member: str) -> list[dict[str, Any]]:
    return json.loads((root / "teams" / TEAM / "inboxes" / f"{member}.json").read_text())


def test_the_mcp_tools_read_and_write_a_ripperdoc_team(tmp_path: Path) -> None:
    root = tmp_path / ".ripperdoc"
    shutil.copytree(FIXTURE, root)

    async def main() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with (
                stdio_session(root, "team-lead", team=TEAM) as lead,
                stdio_session(root, "alice", team=TEAM) as alice,
            ):
                listed = await call(lead, "list_agents")
                agents = {agent["name"]: agent for agent in listed["agents"]}
                assert list(agents) == ["team-lead", "alice", "bob"]
                assert agents["team-lead"]["role"] == "lead"
                assert agents["bob"]["status"] == "offline"  # its run ended: isActive false

                sent = await call(lead, "message_agent", member="alice", summary="crlf", text="the CRLF case too")
                assert sent["to"] == ["alice"] and sent["confirmed"] is True
                entry = inbox(root, "alice")[-1]
                assert (entry["message_type"], entry["content"], entry["read"]) == (
                    "message",
                    "the CRLF case too",
                    False,
                )
                assert entry["id"].startswith("msg_") and isinstance(entry["created_at"], float)

                unread = (await call(alice, "read_inbox"))["messages"]
                assert [m["text"] for m in unread][-1] == "the CRLF case too"
                assert inbox(root, "alice")[-1]["read"] is True  # delivered, as Ripperdoc marks it
                assert (await call(alice, "read_inbox"))["messages"] == []

                await call(alice, "message_agent", member="team-lead", summary="done", text="CRLF fixed")
                reply = inbox(root, "team-lead")[-1]
                assert (reply["sender"], reply["content"]) == ("alice", "CRLF fixed")
                talk = await call(lead, "read_agent_conversation", member="alice")
                assert "CRLF fixed" in json.dumps(talk)

    anyio.run(main)
    log = (root / "teams" / TEAM / "messages.jsonl").read_text().splitlines()
    assert {json.loads(line)["content"] for line in log} >= {"the CRLF case too", "CRLF fixed"}
