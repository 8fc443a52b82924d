"""``teamdeck run`` running members as the pinned Claude Code (``runtime: claude-code``)
against the scripted model: what a user sees after ``teamdeck send`` or a Gitea mention.

- ``teamdeck send`` to a member: ``teamdeck run`` starts its session, whose model's first
  request carries the message exactly as ``teamdeck inbox --inject`` prints it; the model
  answers with teamdeck's ``message_agent`` (the MCP server the run attached as that
  member) and the answer is in the lead's inbox; the run's record holds the session id,
  usage and cost read from the client's result line.
- A second message resumes the same session (``--resume``): the model sees the earlier
  turn; the run is charged only the cost it added (the client's total counts the session).
- A replayed Gitea mention (the fixture deliveries) runs the mentioned agent only.
- Where the teammate flags hold (the workspace is the client's ``~/.claude``) the member
  answers with Claude Code's own ``SendMessage`` into the team's inbox.

Each runner is ``teamdeck run`` (``--once``, or left running while the Gitea deliveries
arrive) in a subprocess with the client's environment (a temporary HOME, the scripted
model, ``$TEAMDECK_CLAUDE`` naming the pinned binary).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.claude_code import claude_env, make_home, option
from support.forge_world import AGENTS, delivery, make_team, post, serving
from support.forge_world import TEAM as QUANT
from support.locations import REPO as REPO_ROOT
from support.mcp_clients import TEAM, make_workspace
from support.scripted_model import INPUT_TOKENS, Reply, Request, ScriptedModel, call, say
from test_claude_code_mcp import use

from teamdeck.store.workspace import Workspace

pytestmark = pytest.mark.slow

RUN_TIMEOUT_S = 180


def teamdeck(root: Path, env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``teamdeck --workspace ROOT ARGS`` as a user runs it, in the client's environment."""
    return subprocess.run(
        [sys.executable, "-m", "teamdeck", "--workspace", str(root), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def run_once(root: Path, env: dict[str, str]) -> None:
    ran = teamdeck(root, env, "run", "--once", timeout=RUN_TIMEOUT_S)
    assert ran.returncode == 0, (ran.stdout, ran.stderr)


@contextmanager
def runner(root: Path, env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``teamdeck run`` left running (as a user leaves it), ended with SIGTERM."""
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "teamdeck", "--workspace", str(root), "run"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield process
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(10)
                raise AssertionError(f"teamdeck run did not end on SIGTERM: {log.read_text()}") from None


def wait_until(what: str, done: Callable[[], bool], timeout: float = RUN_TIMEOUT_S, log: Path | None = None) -> None:
    """Wait for ``done()``; failing, say what did not happen (and the runner's log)."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}" + (f"\n{log.read_text()}" if log else ""))
        time.sleep(0.1)


def configure(root: Path, agents: dict[str, Any]) -> None:
    (root / ".teamdeck.yaml").write_text(yaml.safe_dump({"agents": agents}))


def runs_of(root: Path, team: str, member: str) -> list[tuple[Path, dict[str, Any]]]:
    """The member's runs, oldest first: (directory, run.yaml). A run's directory is made
    before its run.yaml (replaced whole, so once there it stays): one still without it
    is not listed yet."""
    folder = root / "runs" / team / member
    dirs = sorted(path for path in folder.iterdir() if path.is_dir()) if folder.is_dir() else []
    return [(run, yaml.safe_load((run / "run.yaml").read_text())) for run in dirs if (run / "run.yaml").exists()]


def result_line(run: Path) -> dict[str, Any]:
    lines = [json.loads(line) for line in (run / "output.log").read_text().splitlines() if line.strip()]
    assert lines[0]["type"] == "system" and lines[0]["subtype"] == "init", lines[0]
    return next(line for line in reversed(lines) if line["type"] == "result")


def injected(root: Path, env: dict[str, str], tmp_path: Path, member: str, team: str = TEAM) -> str:
    """What ``teamdeck inbox TEAM MEMBER --inject`` prints now, taken on a copy of the
    workspace (it marks the messages read)."""
    copy = tmp_path / f"inject-copy-{member}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy)
    printed = teamdeck(copy, env, "inbox", team, member, "--inject")
    assert printed.returncode == 0, printed.stderr
    return printed.stdout.rstrip("\n")


def prompt_of(request: Request) -> str:
    """The run's prompt: the last text block of the first user message (the client puts
    its own reminders before it)."""
    first = next(m for m in request.messages if m["role"] == "user")
    return [block["text"] for block in first["content"] if block.get("type") == "text"][-1]


def test_send_runs_the_member_its_reply_reaches_the_lead_and_the_next_message_resumes(
    tmp_path: Path, claude: Path, model: ScriptedModel
) -> None:
    ws = make_workspace(tmp_path / "ws")
    root = ws.root
    configure(root, {"alpha/coder": {"runtime": "claude-code", "model": "sonnet", "permission_mode": "acceptEdits"}})
    env = {
        **os.environ,
        **claude_env(make_home(tmp_path / "home"), model.env(), TEAMDECK_CLAUDE=str(claude)),
        "TEAMDECK_WORKSPACE": "",
    }
    reply = {"member": "team-lead", "summary": "parser plan", "text": "CODER-REPLY: JSON first, YAML after."}
    model.script(
        "coder",
        use("teamdeck", "message_agent", reply),
        say("first run done"),
        say("second run done"),
        when="Parse the JSON, please.",
    )

    sent = teamdeck(root, env, "send", TEAM, "coder", "Parse the JSON, please.", "--summary", "parse <json>")
    assert sent.returncode == 0, sent.stderr
    expected_prompt = injected(root, env, tmp_path, "coder")
    run_once(root, env)

    [(first_dir, first)] = runs_of(root, TEAM, "coder")
    asked = model.turns_of("coder")
    assert prompt_of(asked[0]) == expected_prompt  # the unread message, as `inbox --inject` prints it
    assert expected_prompt.startswith('<teammate-message teammate_id="team-lead" summary="parse &lt;json&gt;">')
    session = first["sessionId"]
    assert option(first["argv"], "--session-id") == session and option(first["argv"], "--resume") is None
    assert {request.session_id for request in asked} == {session}
    assert "You are 'coder' of team 'alpha'." in asked[-1].system_text  # teamdeck's MCP server, as coder
    assert asked[0].body["model"] == "claude-sonnet-5-5"
    assert not any("dangerously" in argument for argument in first["argv"])

    lead_inbox = json.loads(ws.inbox(TEAM, "team-lead").read_text())
    assert [(m["from"], m["text"]) for m in lead_inbox] == [("coder", reply["text"])]
    assert all(m["read"] for m in json.loads(ws.inbox(TEAM, "coder").read_text()))

    result = result_line(first_dir)
    assert (first["state"], first["outcome"], first["exitStatus"]) == ("ended", "succeeded", 0)
    assert first["result"] == "first run done" == result["result"]
    assert first["usage"]["input_tokens"] == INPUT_TOKENS * len(asked) == result["usage"]["input_tokens"]
    assert first["costUsd"] == pytest.approx(result["total_cost_usd"]) and first["costUsd"] > 0
    shown = teamdeck(root, env, "runs", "show", first["id"])  # the output log, readable
    assert shown.returncode == 0, shown.stderr
    assert f"session {session} · model claude-sonnet-5-5 · acceptEdits · MCP: teamdeck (connected)" in shown.stdout
    assert '→ mcp__teamdeck__message_agent {"member": "team-lead"' in shown.stdout
    assert "assistant: first run done\nresult (done, " in shown.stdout

    sent = teamdeck(root, env, "send", TEAM, "coder", "Now the YAML.", "--summary", "yaml")
    assert sent.returncode == 0, sent.stderr
    run_once(root, env)

    [_, (second_dir, second)] = runs_of(root, TEAM, "coder")
    assert option(second["argv"], "--resume") == session and second["sessionId"] == session
    latest = model.turns_of("coder")[-1]
    assert latest.session_id == session
    assert prompt_of(latest) == prompt_of(asked[0])  # the same conversation, continued
    assert "CODER-REPLY: JSON first" in latest.text and "first run done" in latest.text
    assert '<teammate-message teammate_id="team-lead" summary="yaml">\nNow the YAML.\n</teammate-message>' in (
        latest.text
    )
    total = result_line(second_dir)["total_cost_usd"]
    assert total > first["costUsd"]  # the client's total counts the whole session...
    assert second["costUsd"] == pytest.approx(total - first["costUsd"])  # ...the run is charged what it added
    assert second["usage"]["input_tokens"] == INPUT_TOKENS


def test_a_replayed_gitea_mention_runs_the_mentioned_agent(tmp_path: Path, claude: Path, model: ScriptedModel) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    ws = Workspace.at(root, actor="human:tester")
    make_team(ws)
    configure(root, {f"{QUANT}/pangtong-fujunshi": {"runtime": "claude-code"}})
    env = {
        **os.environ,
        **claude_env(make_home(tmp_path / "home"), model.env(), TEAMDECK_CLAUDE=str(claude)),
        "TEAMDECK_WORKSPACE": "",
    }
    model.script("pangtong", say("I will answer guanyu on the issue."), when="mentioned you on acme/quant#100")

    def ended() -> bool:
        runs = runs_of(root, QUANT, "pangtong-fujunshi")
        return bool(runs) and runs[-1][1]["state"] == "ended"

    log = tmp_path / "runner.log"
    with runner(root, env, log), serving(ws) as url:
        for name in ("issues-opened-parent-100", "issue-comment-created-100-guanyu"):
            headers, body = delivery(name)
            assert post(url, headers, body).status_code == 200, name
        wait_until("the mentioned agent's run ends", ended, log=log)

    [(_, run)] = runs_of(root, QUANT, "pangtong-fujunshi")
    [asked] = model.turns_of("pangtong")
    [mention] = json.loads(ws.inbox(QUANT, "pangtong-fujunshi").read_text())
    assert mention["read"] is True and mention["summary"] == "guanyu-risk mentioned you on acme/quant#100"
    header = f'<teammate-message teammate_id="team-lead" summary="{mention["summary"]}">'
    assert prompt_of(asked).endswith(f"{header}\n{mention['text']}\n</teammate-message>")
    assert prompt_of(asked).startswith(AGENTS["pangtong-fujunshi"][1])  # its roster prompt: its first run
    assert "请确认风控阈值" in prompt_of(asked)
    assert (run["trigger"], run["outcome"], run["result"]) == (
        "message",
        "succeeded",
        "I will answer guanyu on the issue.",
    )
    for member in ("zhangfei-dev", "guanyu-risk", "simayi-review"):  # told to discuss, but not configured to run
        assert runs_of(root, QUANT, member) == []


def test_in_claude_code_own_directory_the_member_answers_with_send_message(
    tmp_path: Path, claude: Path, model: ScriptedModel
) -> None:
    """The teammate flags hold where the workspace is the client's ``~/.claude``: the
    session is the team's member (the team protocol in its system prompt) and its
    ``SendMessage`` lands in the lead's inbox teamdeck reads."""
    home = make_home(tmp_path / "home")
    ws = make_workspace(home / ".claude")
    configure(ws.root, {"alpha/coder": {"runtime": "claude-code"}})
    env = {**os.environ, **claude_env(home, model.env(), TEAMDECK_CLAUDE=str(claude)), "TEAMDECK_WORKSPACE": ""}
    model.script(
        "coder",
        call("ToolSearch", {"query": "select:SendMessage", "max_results": 5}),
        call("SendMessage", {"to": "team-lead", "message": "MATE-REPLY via SendMessage", "summary": "mate"}),
        say("sent"),
        when="Check the flags.",
    )
    sent = teamdeck(ws.root, env, "send", TEAM, "coder", "Check the flags.", "--summary", "flags")
    assert sent.returncode == 0, sent.stderr
    run_once(ws.root, env)

    [(_, run)] = runs_of(ws.root, TEAM, "coder")
    assert option(run["argv"], "--agent-id") == "coder@alpha"
    first = model.turns_of("coder")[0]
    assert "# Team Coordination" in first.system_text and 'The team lead\'s name is "team-lead"' in first.system_text
    lead_inbox = json.loads(ws.inbox(TEAM, "team-lead").read_text())
    assert [(m["from"], m["text"]) for m in lead_inbox] == [("coder", "MATE-REPLY via SendMessage")]
    assert run["outcome"] == "succeeded"


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def processes_with(*words: str) -> list[int]:
    """Live processes whose command line has each of ``words`` (arguments, e.g. a test's
    own tmp path)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = entry.joinpath("cmdline").read_bytes().decode(errors="replace").split("\0")
            except OSError:
                continue
            if all(word in argv for word in words) and process_alive(int(entry.name)):
                found.append(int(entry.name))
    return found


def test_a_stopped_session_is_gone_with_its_mcp_server_and_the_next_message_continues_it(
    tmp_path: Path, claude: Path, model: ScriptedModel
) -> None:
    """``teamdeck run stop`` while the model is still thinking: the client and the MCP
    server it started (one process group) are gone, the run is recorded stopped with its
    session, and the member's next message continues that session."""
    ws = make_workspace(tmp_path / "ws")
    root = ws.root
    configure(root, {"alpha/coder": {"runtime": "claude-code", "grace_s": 5}})
    env = {
        **os.environ,
        **claude_env(make_home(tmp_path / "home"), model.env(), TEAMDECK_CLAUDE=str(claude)),
        "TEAMDECK_WORKSPACE": "",
    }
    thinking, release = threading.Event(), threading.Event()

    def think(request: Request) -> Reply:
        thinking.set()
        release.wait(RUN_TIMEOUT_S)
        return say("too late")

    model.script("coder", think, say("back on it"), when="A long job.")
    try:
        with runner(root, env, tmp_path / "runner.log"):
            assert teamdeck(root, env, "send", TEAM, "coder", "A long job.", "--summary", "long").returncode == 0
            assert thinking.wait(RUN_TIMEOUT_S), "the member's model was never asked"
            [(_, started)] = runs_of(root, TEAM, "coder")
            mcp_servers = processes_with("mcp", "--workspace", str(root), "--as", "coder")
            assert len(mcp_servers) == 1, "the run's MCP server (teamdeck mcp --as coder) is not running"
            stopped = teamdeck(root, env, "run", "stop", TEAM, "coder")
            assert stopped.returncode == 0, stopped.stderr
            [(_, run)] = runs_of(root, TEAM, "coder")
            assert (run["state"], run["outcome"]) == ("ended", "stopped")
            assert not process_alive(started["pid"])
            wait_until("the MCP server ends with its client", lambda: not any(map(process_alive, mcp_servers)), 15)
            assert run["sessionId"] == started["sessionId"] is not None
    finally:
        release.set()

    assert teamdeck(root, env, "send", TEAM, "coder", "Pick it up again.", "--summary", "again").returncode == 0
    run_once(root, env)
    [_, (_, second)] = runs_of(root, TEAM, "coder")
    assert (second["outcome"], second["result"]) == ("succeeded", "back on it")
    assert option(second["argv"], "--resume") == run["sessionId"] == second["sessionId"]
    latest = model.turns_of("coder")[-1]
    assert "A long job." in latest.text and "Pick it up again." in latest.text


def test_a_member_s_role_prompt_is_in_its_session_s_first_request_and_not_repeated_on_resume(
    tmp_path: Path, claude: Path, model: ScriptedModel
) -> None:
    """Seed 002: a crafter's first run appends templates/roles/crafter.md to the session's
    system prompt; the client keeps it in the session, so the resumed run's request still
    carries it (once) although teamdeck does not pass it again, and it is in no message."""
    from teamdeck.protocol.team.teams import add_member

    ws = make_workspace(tmp_path / "ws")
    root = ws.root
    add_member(ws, TEAM, "maker", role="crafter", prompt="You write the parser.")
    configure(root, {f"{TEAM}/maker": {"runtime": "claude-code"}})
    env = {
        **os.environ,
        **claude_env(make_home(tmp_path / "home"), model.env(), TEAMDECK_CLAUDE=str(claude)),
        "TEAMDECK_WORKSPACE": "",
    }
    model.script("maker", say("on it"), say("still on it"), when="Parse the JSON, please.")
    role = (REPO_ROOT / "templates" / "roles" / "crafter.md").read_text().strip()

    assert teamdeck(root, env, "send", TEAM, "maker", "Parse the JSON, please.", "--summary", "json").returncode == 0
    run_once(root, env)
    [first] = model.turns_of("maker")
    assert role in first.system_text and first.system_text.count("# Your role: crafter") == 1
    assert prompt_of(first).startswith("You write the parser.\n\n<teammate-message")
    assert "Your role" not in json.dumps(first.messages)

    assert teamdeck(root, env, "send", TEAM, "maker", "Now the YAML.", "--summary", "yaml").returncode == 0
    run_once(root, env)
    [(_first_dir, first_run), (_second_dir, second_run)] = runs_of(root, TEAM, "maker")
    assert option(first_run["argv"], "--append-system-prompt") == role
    assert option(second_run["argv"], "--resume") is not None
    assert option(second_run["argv"], "--append-system-prompt") is None  # not passed again...
    latest = model.turns_of("maker")[-1]
    assert "Now the YAML." in json.dumps(latest.messages[-1])
    assert latest.system_text.count("# Your role: crafter") == 1  # ...the session kept it
    assert "Your role" not in json.dumps(latest.messages)
