"""``teamdeck mcp`` driven by the pinned Claude Code, the way an agent uses it.

- The README's MCP instructions run as written (``claude mcp add …`` and ``.mcp.json``),
  approved as Claude Code requires; ``claude mcp list`` then reports them connected.
- One scripted session (a lead and a worker: two servers of one project) calls every
  tool. Claude Code defers MCP tool schemas: the script finds the tools in the list the
  client sends, loads them with ToolSearch as the model must, and builds each call's
  arguments against the schema the client sent. Each result is asserted where the
  model reads it (a later request's ``tool_result``) and in the files teamdeck wrote.
- A decision round trip: ``request_decision``, then ``get_decision`` waiting while
  ``teamdeck gate approve --note`` runs in another process; the note reaches the model.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from support.claude_code import claude_env, make_home, run_claude
from support.locations import REPO
from support.mcp_clients import TEAM, http_server, make_workspace
from support.scripted_model import Reply, Request, ScriptedModel, aside, call, say

from teamdeck.mcp_server.tools import TOOLS as DECLARED

TOOLS = {tool.name: tool.description for tool in DECLARED}

pytestmark = pytest.mark.slow

LEAD, CODER = "teamdeck-lead", "teamdeck-coder"
"""The servers of the project: the README's names, acting as team-lead and coder."""
ALLOWED = f"mcp__{LEAD},mcp__{CODER}"
"""``--allowedTools``: in ``-p`` nobody is there to approve a tool call; these servers' tools may run."""


def readme_block(language: str, containing: str) -> str:
    """The README's fenced ``language`` block that contains ``containing``."""
    blocks = re.findall(rf"```{language}\n(.*?)```", (REPO / "README.md").read_text(), flags=re.S)
    return next(block for block in blocks if containing in block)


def as_written(text: str, workspace: Path) -> str:
    """The README's text with its placeholders (this clone, a workspace) made real."""
    return text.replace("/path/to/teamdeck", str(REPO)).replace("/path/to/ws", str(workspace))


def project_with_readme_mcp_json(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace and a project whose ``.mcp.json`` is the README's, as written."""
    workspace = tmp_path / "ws"
    make_workspace(workspace)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(as_written(readme_block("json", '"mcpServers"'), workspace))
    return workspace, project


def test_readme_claude_mcp_add_and_mcp_json_connect(tmp_path: Path, claude: Path, model: ScriptedModel) -> None:
    workspace = tmp_path / "ws"
    make_workspace(workspace)
    project = tmp_path / "project"
    project.mkdir()
    home = make_home(tmp_path / "home")
    env = claude_env(home, model.env())

    [add_line] = [line for line in readme_block("sh", "claude mcp add").splitlines() if "claude mcp add" in line]
    args = as_written(add_line, workspace).split()
    assert args[:3] == ["claude", "mcp", "add"] and "--scope" in args
    added = run_claude(*args[1:], cwd=project, env=env)
    assert added.returncode == 0, added.stderr
    server = json.loads((project / ".mcp.json").read_text())["mcpServers"][CODER]
    assert [server["command"], *server["args"]] == args[args.index("--") + 1 :]

    pending = run_claude("mcp", "list", cwd=project, env=env)
    assert f"{CODER}:" in pending.stdout and "Connected" not in pending.stdout  # a project server waits for approval

    make_home(home, trusted=[project], mcp_approved=[CODER])  # what approving it in `claude` writes
    listed = run_claude("mcp", "list", cwd=project, env=env)
    assert listed.returncode == 0, listed.stderr
    assert re.search(rf"^{CODER}: \S*teamdeck mcp .* - ✔ Connected$", listed.stdout, flags=re.M), listed.stdout

    _ws, other = project_with_readme_mcp_json(tmp_path / "json-way")
    servers = list(json.loads((other / ".mcp.json").read_text())["mcpServers"])
    make_home(home, trusted=[other], mcp_approved=servers)
    listed = run_claude("mcp", "list", cwd=other, env=env)
    assert listed.returncode == 0, listed.stderr
    for name in servers:
        assert re.search(rf"^{name}: .* - ✔ Connected$", listed.stdout, flags=re.M), (name, listed.stdout)
    assert not model.requests  # listing servers asks no model


def test_readme_http_way_connects_with_the_token_only(tmp_path: Path, claude: Path, model: ScriptedModel) -> None:
    workspace = tmp_path / "ws"
    make_workspace(workspace)
    project = tmp_path / "project"
    project.mkdir()
    env = claude_env(make_home(tmp_path / "home", trusted=[project]), model.env())
    block = readme_block("sh", "--transport http").replace("\\\n", " ")
    [add_line] = [line for line in block.splitlines() if line.startswith("claude mcp add")]
    token = "t" * 48
    with http_server(workspace, "coder", token=token) as url:
        for name, key in (("teamdeck-coder", token), ("teamdeck-wrong", "not-the-token")):
            written = add_line.replace("http://buildbox:8765/mcp", url).replace("$TEAMDECK_MCP_TOKEN", key)
            args = shlex.split(written.replace("teamdeck-coder", name))
            added = run_claude(*args[1:], cwd=project, env=env)
            assert added.returncode == 0, added.stderr
        listed = run_claude("mcp", "list", cwd=project, env=env)
    assert listed.returncode == 0, listed.stderr
    assert re.search(rf"^teamdeck-coder: {re.escape(url)} \(HTTP\) - ✔ Connected$", listed.stdout, flags=re.M), (
        listed.stdout
    )
    wrong = next(line for line in listed.stdout.splitlines() if line.startswith("teamdeck-wrong:"))
    assert "✔ Connected" not in wrong and "401" in wrong, wrong  # refused by teamdeck


# --- one session, every tool -----------------------------------------------------------


def tool_name(server: str, tool: str) -> str:
    return f"mcp__{server}__{tool}"


def load_teamdeck_tools(request: Request) -> Reply:
    """What the model does first: the teamdeck tools are deferred, so load them, by
    name when the client lists them all, else (servers still connecting) by keyword;
    whatever that misses, :func:`use` loads before calling it."""
    wanted = [tool_name(server, tool) for server in (LEAD, CODER) for tool in TOOLS]
    listed = [name for name in wanted if name in request.deferred_tools]
    query = "select:" + ",".join(wanted) if listed == wanted else "+teamdeck"
    return call("ToolSearch", {"query": query, "max_results": 100})  # the README's project has three servers


SEARCH_AGAIN_S = 0.5
MAX_SEARCHES = 60
"""A server still connecting is searched again every half second, for 30 s at most (a
model takes that long to answer; the scripted one answers at once)."""


def use(server: str, tool: str, arguments: Callable[[Request], dict[str, Any]] | dict[str, Any]) -> Callable:
    """A turn calling ``tool`` of ``server`` with ``arguments`` (or a function of the
    request making them), as a model can: once ToolSearch loaded the tool (until then
    it searches again: the server may have been connecting), with arguments valid
    against the schema the client sent."""

    def turn(request: Request) -> Reply:
        name = tool_name(server, tool)
        if name not in request.loaded_tools:
            searches = len(request.tool_uses("ToolSearch"))
            assert searches < MAX_SEARCHES, f"{name} never loaded; ToolSearch said {request.result_of('ToolSearch')!r}"
            if searches:
                time.sleep(SEARCH_AGAIN_S)
            query = f"select:{name}" if name in request.deferred_tools else f"+{server}"
            return aside(call("ToolSearch", {"query": query, "max_results": 100}))
        args = arguments(request) if callable(arguments) else arguments
        jsonschema.validate(args, request.tool(name)["input_schema"])
        return call(name, args)

    return turn


def result(request: Request, server: str, tool: str) -> dict[str, Any]:
    """A tool's latest result, as the model read it (teamdeck's JSON, as text)."""
    return json.loads(request.result_of(tool_name(server, tool)))


def test_a_session_calls_every_tool(tmp_path: Path, claude: Path, model: ScriptedModel) -> None:
    workspace, project = project_with_readme_mcp_json(tmp_path)
    home = make_home(tmp_path / "home", trusted=[project], mcp_approved=[LEAD, CODER])
    gate_of = lambda r: result(r, CODER, "request_decision")["gate"]  # noqa: E731
    model.script(
        "agent",
        load_teamdeck_tools,
        use(LEAD, "list_agents", {}),
        use(LEAD, "create_agent", {"name": "helper", "role": "researcher", "model": "sonnet", "prompt": "dig"}),
        use(LEAD, "message_agent", {"member": "coder", "summary": "hello", "text": "Read the spec first."}),
        use(LEAD, "message_agent", {"member": "nobody", "summary": "s", "text": "x"}),
        use(LEAD, "delegate", {"task": "t1", "member": "coder", "note": "parse JSON only"}),
        use(LEAD, "read_agent_conversation", {"member": "coder"}),
        use(CODER, "read_inbox", {}),
        use(CODER, "request_decision", {"task": "t1", "reason": "which dialect?", "questions": ["JSON5 too?"]}),
        use(CODER, "get_decision", lambda r: {"task": "t1", "gate": gate_of(r)}),
        use(
            CODER,
            "report_to_parent",
            {"task": "t1", "status": "completed", "summary": "parser done", "changed_files": ["parser.py"]},
        ),
        use(LEAD, "wait_for_agent", {"member": "coder", "task": "t1", "timeout_s": 30}),
        say("all done"),
    )
    session = run_claude(
        "-p",
        "Coordinate the parser team.",
        "--output-format",
        "stream-json",
        "--verbose",
        "--allowedTools",
        ALLOWED,
        cwd=project,
        env=claude_env(home, model.env()),
    )
    assert session.returncode == 0, session.stderr
    frames = [json.loads(line) for line in session.stdout.splitlines()]
    init = next(f for f in frames if f["type"] == "system" and f.get("subtype") == "init")
    # The init frame may come before or after the servers connect (a race with the
    # machine's load): either way both project servers are there, none failed.
    statuses = {s["name"]: s["status"] for s in init["mcp_servers"]}
    assert {statuses.get(LEAD), statuses.get(CODER)} <= {"pending", "connected"}, statuses
    final = frames[-1]
    assert (final["type"], final["is_error"], final["result"]) == ("result", False, "all done"), final

    last = model.turns_of("agent")[-1]
    for member in ("team-lead", "coder"):  # each server's instructions reach the model
        assert f"You are '{member}' of team '{TEAM}'." in last.system_text
    called = {use["name"] for use in last.tool_uses()}
    assert {name.split("__")[-1] for name in called if name.startswith("mcp__")} == set(TOOLS)
    assert {name for name in called if name.startswith("mcp__")} <= set(last.loaded_tools)  # loaded before use

    # What the model read, turn by turn.
    agents = result(last, LEAD, "list_agents")
    assert agents["you"] == "team-lead"
    assert [a["name"] for a in agents["agents"]] == ["team-lead", "coder", "reviewer"]
    assert result(last, LEAD, "create_agent")["member"]["name"] == "helper"
    sent_block, refused = last.results_of(tool_name(LEAD, "message_agent"))
    assert refused["is_error"] is True and "Unknown recipient 'nobody' in team 'alpha'" in text_of(refused)
    assert not sent_block.get("is_error")
    sent = json.loads(text_of(sent_block))
    assert (sent["to"], sent["confirmed"]) == (["coder"], True)
    assert result(last, LEAD, "delegate")["task"]["state"] == "working"
    talk = result(last, LEAD, "read_agent_conversation")
    assert [(row["direction"], row["type"]) for row in talk["messages"]] == [
        ("received", "plain"),
        ("received", "task_assignment"),
    ]
    inbox = result(last, CODER, "read_inbox")
    assert inbox["messages"][0]["block"].startswith('<teammate-message teammate_id="team-lead" summary="hello">')
    assert "Read the spec first." in last.text
    asked = result(last, CODER, "request_decision")
    assert (asked["status"], asked["taskState"]) == ("pending", "input-required")
    assert result(last, CODER, "get_decision")["status"] == "pending"
    assert result(last, CODER, "report_to_parent")["notified"] == ["team-lead"]
    waited = result(last, LEAD, "wait_for_agent")
    assert waited["event"] == "reported" and waited["report"]["summary"] == "parser done"

    # Where teamdeck wrote it.
    team = workspace / "teams" / TEAM
    config = json.loads((team / "config.json").read_text())
    assert "helper" in [m["name"] for m in config["members"]]
    coder_inbox = json.loads((team / "inboxes" / "coder.json").read_text())
    assert coder_inbox[0]["text"] == "Read the spec first." and all(entry["read"] for entry in coder_inbox)
    assert json.loads(coder_inbox[1]["text"])["type"] == "task_assignment"
    lead_inbox = json.loads((team / "inboxes" / "team-lead.json").read_text())
    assert lead_inbox[-1]["from"] == "coder" and lead_inbox[-1]["summary"] == "t1: completed"
    task = yaml.safe_load((workspace / "tasks" / "t1" / "task.yaml").read_text())
    assert task["gates"][0]["id"] == asked["gate"] and task["workers"][0]["member"] == "coder"
    final_json = json.loads((workspace / "tasks" / "t1" / "agents" / "coder" / "artifacts" / "final.json").read_text())
    assert (final_json["summary"], final_json["changedFiles"]) == ("parser done", ["parser.py"])


def has_result(request: Request, name: str) -> bool:
    return bool(request.results_of(name))


def text_of(block: dict[str, Any]) -> str:
    content = block.get("content")
    return content if isinstance(content, str) else "".join(part.get("text", "") for part in content or ())


# --- a decision round trip ------------------------------------------------------------


IDLE_TIMEOUT_MS = 20_000
"""Claude Code aborts an MCP tool call that sends "no response or progress" for this long
(checked every 30 s; 5 min over HTTP and 30 min over stdio by default, lowered here)."""
DECIDED_AFTER_S = 35
"""The person answers after the client's first idle check: the call must be kept alive."""


def test_a_decision_note_reaches_the_model(tmp_path: Path, claude: Path, model: ScriptedModel) -> None:
    """The agent waits on get_decision longer than Claude Code lets a silent tool call
    run (teamdeck reports progress meanwhile); the person approves with a note from
    another process; the note is in the model's next request."""
    workspace, project = project_with_readme_mcp_json(tmp_path)
    home = make_home(tmp_path / "home", trusted=[project], mcp_approved=[LEAD, CODER])
    note = "Plain JSON only; comments are out of scope."
    model.script(
        "coder",
        load_teamdeck_tools,
        use(LEAD, "delegate", {"task": "t1", "member": "coder"}),
        use(CODER, "request_decision", {"task": "t1", "reason": "which dialect?", "questions": ["JSON5 too?"]}),
        use(CODER, "get_decision", lambda r: {"task": "t1", "gate": gate(r), "wait_s": 120}),
        say("decided"),
    )
    gate = lambda r: result(r, CODER, "request_decision")["gate"]  # noqa: E731
    session = subprocess.Popen(
        [str(claude), "-p", "Build the parser.", "--output-format", "json", "--allowedTools", ALLOWED],
        cwd=project,
        env=claude_env(home, model.env(), CLAUDE_CODE_MCP_TOOL_IDLE_TIMEOUT=str(IDLE_TIMEOUT_MS)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        asked = model.wait_for(lambda r: has_result(r, tool_name(CODER, "request_decision")), timeout=90)
        time.sleep(DECIDED_AFTER_S)
        approve = subprocess.run(
            [sys.executable, "-m", "teamdeck", "--workspace", str(workspace), "gate", "approve", "t1", gate(asked)]
            + ["--note", note],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert approve.returncode == 0, approve.stderr
        out, err = session.communicate(timeout=90)
    finally:
        if session.poll() is None:
            session.kill()
            session.wait(timeout=10)
    assert session.returncode == 0, err
    assert json.loads(out)["result"] == "decided"
    after = model.turns_of("coder")[-1]
    answered = after.results_of(tool_name(CODER, "get_decision"))[-1]
    assert not answered.get("is_error"), answered["content"]  # e.g. aborted by the client as silent too long
    decided = result(after, CODER, "get_decision")
    assert (decided["status"], decided["note"]) == ("approved", note)
    assert note in after.text
