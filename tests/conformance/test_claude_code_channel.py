"""``teamdeck mcp --channel`` driven by the pinned Claude Code, as the README says to run it.

The interactive client runs in a private tmux pane (tests/support/claude_session.py) against the
scripted model, with the project's ``.mcp.json`` and the ``claude`` line of the README's
"Channels" section as written:

- a tool call that needs permission is a decision in ``teamdeck decisions list``
  (tool, input, who asks, since when); ``decisions decide … approve`` answers it over
  the channel and the tool runs (the model's next request carries its result);
  ``reject`` and the model reads a refusal, the tool never ran (R: B-channel-1/2);
- ``teamdeck send`` reaches the running session through the channel, as a
  ``<channel source="teamdeck" …>`` user turn, once, and the inbox entry is marked
  read (the session's own mailbox read will not deliver it again);
- where 2.1.332 does not offer the mechanism: ``claude -p`` registers no channel for
  a project server; ``--channels`` alone refuses a server not on Anthropic's
  allowlist. The tests show it from the client's own debug log.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.claude_code import claude_env, make_home, run_claude
from support.claude_session import CHANNEL_ENV, InteractiveClaude, channel_home
from support.locations import REPO
from support.mcp_clients import TEAM, make_workspace
from support.scripted_model import Reply, Request, ScriptedModel, call, say

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("tmux") is None, reason="tmux is not installed (the interactive client runs in it)"
    ),
]

SERVER = "teamdeck"
TOUCH = {"command": "touch made-by-bash", "description": "make a file"}
DEADLINE_S = 90.0


def readme_section() -> str:
    text = (REPO / "README.md").read_text()
    start = text.index("### Channels")
    return text[start : text.index("\n## ", start)]


def readme_mcp_json(workspace: Path) -> str:
    [block] = re.findall(r"```json\n(.*?)```", readme_section(), flags=re.S)
    return block.replace("/path/to/teamdeck", str(REPO)).replace("/path/to/ws", str(workspace))


def readme_claude_args() -> list[str]:
    [line] = [line for line in readme_section().splitlines() if line.startswith("claude --")]
    return line.split("#")[0].split()[1:]


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A workspace (team alpha), a project whose .mcp.json is the README's, a HOME with
    channels on (claude_session.channel_home)."""
    workspace = tmp_path / "ws"
    make_workspace(workspace)
    project = tmp_path / "project"
    project.mkdir()
    (project / ".mcp.json").write_text(readme_mcp_json(workspace))
    home = channel_home(make_home(tmp_path / "home", trusted=[project], mcp_approved=[SERVER]))
    return workspace, project, home


@pytest.fixture
def session(world: tuple[Path, Path, Path], model: ScriptedModel, tmp_path: Path) -> Iterator[InteractiveClaude]:
    _workspace, project, home = world
    client = InteractiveClaude(
        *readme_claude_args(),
        "--permission-mode",
        "default",  # 2.1.332's default is auto mode, whose classifier answers prompts itself
        cwd=project,
        env=claude_env(home, model.env(), **CHANNEL_ENV),
        debug_file=tmp_path / "claude-debug.log",
    )
    try:
        client.confirm_dev_channels()
        client.wait_in_debug(f'MCP server "{SERVER}": Channel notifications registered')
        yield client
    finally:
        client.kill()


def teamdeck(workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "teamdeck", "--workspace", str(workspace), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def waiting_prompt(workspace: Path) -> dict[str, Any]:
    """The session-permission decision, once it is in ``decisions list --json``."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        listed = teamdeck(workspace, "decisions", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        found = [d for d in json.loads(listed.stdout)["decisions"] if d["kind"] == "session-permission"]
        if found:
            return found[0]
        assert time.monotonic() < deadline, f"no permission prompt in the queue: {listed.stdout}"
        time.sleep(0.3)


def bash_answered(request: Request) -> bool:
    return bool(request.results_of("Bash"))


def ask_to_touch(model: ScriptedModel, session: InteractiveClaude, workspace: Path) -> dict[str, Any]:
    model.script("coder", call("Bash", TOUCH), say("after bash"))
    session.type("make the file")
    session.wait_for("Do you want to proceed?")  # the terminal asks too: the first answer wins
    return waiting_prompt(workspace)


def test_a_permission_prompt_approved_in_teamdeck_runs_the_tool(
    world: tuple[Path, Path, Path], session: InteractiveClaude, model: ScriptedModel
) -> None:
    workspace, project, _home = world
    started = time.time()
    decision = ask_to_touch(model, session, workspace)
    assert (decision["team"], decision["member"], decision["tool"]) == (TEAM, "coder", "Bash")
    assert json.loads(decision["input"]) == TOUCH  # the client's input_preview, whole
    assert decision["key"].startswith(f"session:{TEAM}:coder:") and decision["state"] == "blocked"
    assert abs(_epoch(decision["createdAt"]) - started) < DEADLINE_S
    assert not (project / "made-by-bash").exists()

    decided = teamdeck(workspace, "decisions", "decide", decision["key"], "approve")
    assert decided.returncode == 0, decided.stderr

    after = model.wait_for(bash_answered, timeout=DEADLINE_S)
    [result] = after.results_of("Bash")
    assert not result.get("is_error"), result
    assert (project / "made-by-bash").exists()
    assert not [d for d in json.loads(teamdeck(workspace, "decisions", "list", "--json").stdout)["decisions"]]
    session.wait_in_debug("notifications/claude/channel/permission: ")  # answered over the channel
    assert "matched pending" in session.wait_in_debug("notifications/claude/channel/permission: ")


def test_a_permission_prompt_denied_in_teamdeck_is_refused(
    world: tuple[Path, Path, Path], session: InteractiveClaude, model: ScriptedModel
) -> None:
    workspace, project, _home = world
    decision = ask_to_touch(model, session, workspace)
    decided = teamdeck(workspace, "decisions", "decide", decision["key"], "reject", "--note", "not now")
    assert decided.returncode == 0, decided.stderr

    after = model.wait_for(bash_answered, timeout=DEADLINE_S)
    [result] = after.results_of("Bash")
    assert result.get("is_error") is True, result  # the model reads a refusal
    assert f"Denied via channel {SERVER}" in json.dumps(result["content"])  # FORMAT.md, "Channel notifications"
    assert not (project / "made-by-bash").exists()
    again = teamdeck(workspace, "decisions", "decide", decision["key"], "approve")
    assert again.returncode != 0  # settled: the first answer won


def test_a_message_reaches_the_running_session_through_the_channel(
    world: tuple[Path, Path, Path], session: InteractiveClaude, model: ScriptedModel
) -> None:
    workspace, _project, _home = world
    model.script("coder", say("read it"))
    sent = teamdeck(workspace, "send", TEAM, "coder", "--summary", "spec first", "Please read the spec")
    assert sent.returncode == 0, sent.stderr

    pushed = model.wait_for(lambda r: r.agent == "coder" and "Please read the spec" in r.text, timeout=DEADLINE_S)
    [turn] = [m for m in pushed.messages if "Please read the spec" in json.dumps(m)]
    assert turn["role"] == "user"  # a turn of the session, not a peer's unverified message
    text = "\n".join(block.get("text", "") for block in turn["content"] if isinstance(block, dict))
    tag = re.search(r'<channel source="teamdeck"([^>]*)>\nPlease read the spec\n</channel>', text)
    assert tag, text
    assert 'from="team-lead"' in tag.group(1) and 'kind="plain"' in tag.group(1)
    assert 'summary="spec first"' in tag.group(1)
    assert "unverified" not in text
    session.wait_for("read it")

    inbox = json.loads((workspace / "teams" / TEAM / "inboxes" / "coder.json").read_text())
    assert [entry["read"] for entry in inbox if entry["text"] == "Please read the spec"] == [True]
    time.sleep(3)  # a second look at the files must not push it again
    pushes = [
        json.loads(line)
        for line in (workspace / "sessions" / f"{TEAM}.jsonl").read_text().splitlines()
        if '"channel_push"' in line
    ]
    assert len(pushes) == 1
    carrying = {
        json.dumps(message, sort_keys=True)
        for request in model.turns_of("coder")
        for message in request.messages
        if "Please read the spec" in json.dumps(message)
    }
    assert len(carrying) == 1  # one turn, however many requests repeat the conversation


def test_a_prompt_answered_in_the_terminal_first_is_closed_in_the_queue(
    world: tuple[Path, Path, Path], model: ScriptedModel, tmp_path: Path
) -> None:
    """With ``teamdeck hook`` installed as well, the channel's prompt and the
    ``PermissionRequest`` hook's are one decision; the person answers in the terminal;
    the ``PostToolUse`` hook closes it in the queue."""
    workspace, project, home = world
    installed = subprocess.run(
        [sys.executable, "-m", "teamdeck", "--workspace", str(workspace), "hook", "install", "--project"]
        + ["--team", TEAM, "--as", "coder"],
        cwd=project, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    client = InteractiveClaude(
        *readme_claude_args(), "--permission-mode", "default",
        cwd=project, env=claude_env(home, model.env(), **CHANNEL_ENV), debug_file=tmp_path / "debug.log",
    )  # fmt: skip
    try:
        client.confirm_dev_channels()
        client.wait_in_debug(f'MCP server "{SERVER}": Channel notifications registered')
        decision = ask_to_touch(model, client, workspace)
        deadline = time.monotonic() + DEADLINE_S
        while "hook" not in decision["title"]:  # the hook's path joins the channel's decision
            assert time.monotonic() < deadline, decision
            time.sleep(0.3)
            decision = waiting_prompt(workspace)
        listed = json.loads(teamdeck(workspace, "decisions", "list", "--json").stdout)["decisions"]
        assert [d["key"] for d in listed] == [decision["key"]]  # one request, one decision
        client.tmux("send-keys", "-t", "cc", "Enter")  # "1. Yes" in the terminal
        model.wait_for(bash_answered, timeout=DEADLINE_S)
        deadline = time.monotonic() + DEADLINE_S
        while json.loads(teamdeck(workspace, "decisions", "list", "--json").stdout)["decisions"]:
            assert time.monotonic() < deadline, "the prompt answered in the terminal stayed in the queue"
            time.sleep(0.3)
    finally:
        client.kill()
    assert (project / "made-by-bash").exists()
    log = [json.loads(line) for line in (workspace / "sessions" / f"{TEAM}.jsonl").read_text().splitlines()]
    [closed] = [r for r in log if r["type"] == "permission_closed"]
    assert closed["payload"]["prompt"] == decision["key"].rsplit(":", 1)[1]
    assert not [r for r in log if r["type"] == "permission_answer"]


def _epoch(iso: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


# --- where 2.1.332 does not offer it ------------------------------------------------------


def test_headless_claude_registers_no_channel(
    world: tuple[Path, Path, Path], model: ScriptedModel, tmp_path: Path
) -> None:
    """``claude -p`` connects the server but never registers its channel (only the
    interactive client does, for a server named on the command line)."""
    _workspace, project, home = world
    debug = tmp_path / "headless-debug.log"

    def once_connected(_request: Request) -> Reply:
        """Answer once the server is connected, and a second later (the interactive
        client registers a channel within milliseconds of connecting)."""
        deadline = time.monotonic() + DEADLINE_S
        while f'MCP server "{SERVER}": Connection established' not in debug.read_text():
            assert time.monotonic() < deadline, "the server never connected"
            time.sleep(0.2)
        time.sleep(1)
        return say("done")

    model.script("coder", once_connected)
    ran = run_claude(
        "-p", "hello", *readme_claude_args(), "--debug-file", str(debug),
        cwd=project, env=claude_env(home, model.env(), **CHANNEL_ENV),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    log = debug.read_text()
    assert f'MCP server "{SERVER}": Connection established' in log
    assert "Channel notifications registered" not in log


def test_channels_alone_refuse_a_server_not_on_the_allowlist(
    world: tuple[Path, Path, Path], model: ScriptedModel, tmp_path: Path
) -> None:
    _workspace, project, home = world
    client = InteractiveClaude(
        "--channels", f"server:{SERVER}",
        cwd=project, env=claude_env(home, model.env(), **CHANNEL_ENV), debug_file=tmp_path / "debug.log",
    )  # fmt: skip
    try:
        line = client.wait_in_debug(f'MCP server "{SERVER}": Channel notifications skipped')
    finally:
        client.kill()
    assert "not on the approved channels allowlist" in line
