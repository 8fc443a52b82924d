"""``teamdeck mcp`` over stdio, driven by the MCP SDK's own client: the ten
tools with their schemas, each tool called and the files it writes checked, and bad
input refused with one clear line and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
import yaml
from support.mcp_clients import TEAM, call, make_workspace, refused, stdio_session, workspace_bytes

from teamdeck.mcp_server.tools import TOOLS as DECLARED
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.store.workspace import Workspace

TOOLS = {tool.name: tool.description for tool in DECLARED}

pytestmark = pytest.mark.slow

HOSTILE = "\x1b]52;c;ZXZpbA==\x07clip \x1b[2Jclear \u202eevil"
TIMEOUT_S = 120


def inbox(root: Path, member: str) -> list[dict]:
    return json.loads((root / "teams" / TEAM / "inboxes" / f"{member}.json").read_text())


def log_records(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / "teams" / TEAM / "messages.jsonl").read_text().splitlines()]


def events(root: Path, task: str) -> list[dict]:
    return [json.loads(line) for line in (root / "tasks" / task / "events.jsonl").read_text().splitlines()]


def task_yaml(root: Path, task: str) -> dict:
    return yaml.safe_load((root / "tasks" / task / "task.yaml").read_text())


def test_list_tools_gives_the_ten_tools_with_schemas(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)

    async def main() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with stdio_session(root, "team-lead") as lead:
                tools = {tool.name: tool for tool in (await lead.list_tools()).tools}
        assert list(tools) == list(TOOLS)
        for name, tool in tools.items():
            assert tool.description == TOOLS[name]
            assert tool.input_schema["type"] == "object"
            assert tool.output_schema is not None and tool.output_schema["type"] == "object", name
            for field, schema in tool.input_schema.get("properties", {}).items():
                assert schema.get("description"), (name, field)
        assert set(tools["message_agent"].input_schema["required"]) == {"member", "summary", "text"}
        assert set(tools["request_decision"].input_schema["required"]) == {"task", "reason", "questions"}
        assert tools["report_to_parent"].input_schema["properties"]["status"]["enum"] == [
            "completed",
            "blocked",
            "failed",
        ]
        assert "required" not in tools["read_inbox"].input_schema

    anyio.run(main)


def test_every_tool_writes_the_files_the_cli_writes(tmp_path: Path) -> None:
    """A lead and a worker, each its own server: every tool is called once at least."""
    root = tmp_path / "ws"
    make_workspace(root)

    async def main() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with stdio_session(root, "team-lead") as lead, stdio_session(root, "coder") as coder:
                await tour(root, lead, coder)

    anyio.run(main)


async def tour(root: Path, lead, coder) -> None:
    listed = await call(lead, "list_agents")
    assert listed["you"] == "team-lead"
    assert [(a["name"], a["role"], a["status"]) for a in listed["agents"]] == [
        ("team-lead", "lead", "working"),
        ("coder", "general-purpose", "working"),
        ("reviewer", "general-purpose", "working"),
    ]

    created = await call(lead, "create_agent", name="helper", role="researcher", model="sonnet", prompt="dig")
    assert created["started"] is False
    config = json.loads((root / "teams" / TEAM / "config.json").read_text())
    helper = next(m for m in config["members"] if m["name"] == "helper")
    assert (helper["agentType"], helper["model"], helper["prompt"], helper["isActive"]) == (
        "researcher",
        "sonnet",
        "dig",
        True,
    )
    assert log_records(root)[-1]["type"] == "member_added" and log_records(root)[-1]["member"] == "helper"

    sent = await call(lead, "message_agent", member="CODER", summary="hello", text="Read the spec first.")
    assert sent["to"] == ["coder"] and sent["confirmed"] is True
    entry = inbox(root, "coder")[-1]
    assert list(entry) == ["from", "text", "summary", "timestamp", "read"]  # Claude Code's key order
    assert (entry["from"], entry["text"], entry["summary"], entry["read"]) == (
        "team-lead",
        "Read the spec first.",
        "hello",
        False,
    )
    record = log_records(root)[-1]
    assert (record["type"], record["from"], record["to"], record["id"]) == (
        "message",
        "team-lead",
        ["coder"],
        sent["id"],
    )

    delegated = await call(lead, "delegate", task="t1", member="coder", note="parse JSON only")
    assert delegated["task"]["state"] == "working" and delegated["worker"]["assignedBy"] == "team-lead"
    task = task_yaml(root, "t1")
    assert task["state"] == "working" and task["workers"][0]["member"] == "coder"
    assert [e["type"] for e in events(root, "t1")][-2:] == ["task.delegated", "task.state_changed"]
    assignment = json.loads(inbox(root, "coder")[-1]["text"])
    assert assignment["type"] == "task_assignment" and assignment["taskId"] == "t1"
    assert "parse JSON only" in assignment["description"]

    talk = await call(lead, "read_agent_conversation", member="coder")
    assert [(row["direction"], row["type"]) for row in talk["messages"]] == [
        ("received", "plain"),
        ("received", "task_assignment"),
    ]
    assert talk["total"] == 2 and talk["before"] is None

    read = await call(coder, "read_inbox")
    assert [m["type"] for m in read["messages"]] == ["plain", "task_assignment"]
    assert read["messages"][0]["block"].startswith('<teammate-message teammate_id="team-lead" summary="hello">')
    assert all(entry["read"] for entry in inbox(root, "coder"))
    assert (await call(coder, "read_inbox"))["messages"] == []
    assert len((await call(coder, "read_inbox", unread_only=False))["messages"]) == 2

    asked = await call(
        coder, "request_decision", task="t1", reason="which JSON dialect?", questions=["JSON5 too?", "Comments?"]
    )
    gate = asked["gate"]
    assert (gate, asked["status"], asked["taskState"]) == ("g-coder-1", "pending", "input-required")
    task = task_yaml(root, "t1")
    assert task["state"] == "input-required"
    assert task["gates"][0]["kind"] == "worker-blocked" and task["gates"][0]["agentInstance"] == "coder"
    blocked = events(root, "t1")[-2]
    assert blocked["type"] == "gate.blocked" and blocked["actor"] == "agent:coder"
    assert blocked["payload"]["questions"] == ["JSON5 too?", "Comments?"]
    notes = (root / "tasks" / "t1" / "shared" / "human-notes.md").read_text()
    assert "<!-- teamdeck:gate g-coder-1 -->" in notes and "JSON5 too?" in notes

    assert (await call(coder, "get_decision", task="t1", gate=gate))["status"] == "pending"
    decide_gate(Workspace.at(root, actor="human:alex"), "t1", gate, "approve", note="plain JSON only")
    decided = await call(coder, "get_decision", task="t1", gate=gate)
    assert (decided["status"], decided["decidedBy"], decided["note"]) == ("approved", "human:alex", "plain JSON only")

    reported = await call(
        coder, "report_to_parent", task="t1", status="completed", summary="parser done", changed_files=["parser.py"]
    )
    assert reported["notified"] == ["team-lead"]
    final = json.loads((root / "tasks" / "t1" / "agents" / "coder" / "artifacts" / "final.json").read_text())
    assert (final["status"], final["summary"], final["changedFiles"]) == ("completed", "parser done", ["parser.py"])
    assert "worker.reported" in [e["type"] for e in events(root, "t1")]
    told = inbox(root, "team-lead")[-1]
    assert told["from"] == "coder" and told["summary"] == "t1: completed"

    waited = await call(lead, "wait_for_agent", member="coder", task="t1", timeout_s=30)
    assert waited["event"] == "reported" and waited["report"]["summary"] == "parser done"

    talk = await call(lead, "read_agent_conversation", member="coder", limit=1)
    assert talk["messages"][0]["direction"] == "sent" and talk["messages"][0]["to"] == ["team-lead"]
    assert talk["before"] == talk["total"] - 1


def test_bad_input_is_refused_in_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    make_workspace(root)
    before = workspace_bytes(root)

    async def main() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with stdio_session(root, "team-lead") as lead:
                errors = {
                    "unknown member": await refused(lead, "message_agent", member="nobody", summary="s", text="x"),
                    "missing summary": await refused(lead, "message_agent", member="coder", text="x"),
                    "empty summary": await refused(lead, "message_agent", member="coder", summary=" ", text="x"),
                    "hostile member": await refused(lead, "message_agent", member=HOSTILE, summary="s", text="x"),
                    "hostile name": await refused(lead, "create_agent", name=HOSTILE),
                    "hostile task": await refused(lead, "delegate", task=HOSTILE, member="coder"),
                    "10 MB text": await refused(
                        lead, "message_agent", member="coder", summary="s", text="x" * 10_000_000
                    ),
                    "unknown task": await refused(lead, "delegate", task="nope", member="coder"),
                    "report unknown task": await refused(
                        lead, "report_to_parent", task="nope", status="completed", summary="s"
                    ),
                    "decision unknown task": await refused(
                        lead, "request_decision", task="nope", reason="r", questions=["q"]
                    ),
                    "no question": await refused(lead, "request_decision", task="t1", reason="r", questions=[" "]),
                    "unknown gate": await refused(lead, "get_decision", task="t1", gate="g-nope"),
                    "wait unknown task": await refused(
                        lead, "wait_for_agent", member="coder", task="nope", timeout_s=1
                    ),
                    "bad status": await refused(lead, "report_to_parent", task="t1", status="done", summary="s"),
                    "bad limit": await refused(lead, "read_agent_conversation", member="coder", limit=0),
                }
        assert "Unknown recipient 'nobody' in team 'alpha'" in errors["unknown member"]
        assert "summary" in errors["missing summary"] and "invalid arguments" in errors["missing summary"]
        assert "summary is empty" in errors["empty summary"]
        assert "10,000" in errors["10 MB text"] and "nothing was written" in errors["10 MB text"]
        assert "nope" in errors["unknown task"] and "nope" in errors["report unknown task"]
        assert "nope" in errors["decision unknown task"] and "nope" in errors["wait unknown task"]
        assert "at least one" in errors["no question"]
        assert "g-nope" in errors["unknown gate"]
        assert "status" in errors["bad status"] and "limit" in errors["bad limit"]
        for what, text in errors.items():
            assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text, what
            assert len(text) < 600, what

    anyio.run(main)
    assert workspace_bytes(root) == before


def test_help_lists_the_tools(tmp_path: Path, run_cli) -> None:
    result = run_cli(tmp_path, "mcp", "--help")
    assert result.code == 0
    for name in TOOLS:
        assert f"\n  {name} " in result.out, name
