"""``runtime: claude-code`` without the client: what a run is asked to start (argv, stdin,
environment, the MCP config it writes) and what is read back from its stream-json output
log. The real client runs these in tests/conformance/test_claude_code_runtime.py; the
output lines here have the shape the pinned client writes (docs/runtime-claude-code.md).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from support.claude_code import option as argv_option

from teamdeck.errors import Refused
from teamdeck.model.agents import AgentConfig
from teamdeck.protocol.team.messaging.injection import format_block
from teamdeck.runtime.claude.headless import CLAUDE_CODE
from teamdeck.runtime.config import AgentsConfigError, check_agents
from teamdeck.runtime.registry import BUILT_IN_RUNTIMES
from teamdeck.runtime.spec import Launch, Message, RunRequest
from teamdeck.runtime.wake import NOTHING_UNREAD

SESSION = "0b5c3c51-5d0c-4a47-9a53-3c2f6f0a1d11"


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An executable named ``claude``, first on PATH; HOME is a fresh directory."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "claude"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TEAMDECK_CLAUDE", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return exe


def keep_session(home: Path, session: str = SESSION) -> None:
    """The session's transcript where the client keeps it (``~/.claude/projects/<cwd>/``)."""
    transcript = home / ".claude" / "projects" / "-work-project" / f"{session}.jsonl"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text("{}\n")


def message(text: str, *, sender: str = "team-lead", summary: str = "s") -> Message:
    return Message(
        sender, "message", "2026-03-01T12:00:00Z", text, format_block(sender, text, summary=summary), summary
    )


def request(
    root: Path, run_id: str = "r-01", *, session_id: str | None = None, config: AgentConfig | None = None, **more: Any
) -> RunRequest:
    run_dir = root / "runs" / "alpha" / "coder" / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    return RunRequest(
        workspace=root,
        team="alpha",
        member="coder",
        run_id=run_id,
        run_dir=run_dir,
        config=config or AgentConfig(),
        session_id=session_id,
        lead="team-lead",
        **more,
    )


def option(launch: Launch, name: str) -> str | None:
    return argv_option(launch.argv, name)


def test_first_run_picks_the_session_and_prompts_with_the_roster_prompt_and_the_unread_blocks(
    tmp_path: Path, claude: Path
) -> None:
    asked = message("Parse the JSON, please.", summary="parse <it>")
    launch = CLAUDE_CODE.launch(request(tmp_path, messages=(asked, message("and YAML")), prompt="You parse files."))

    assert launch.argv[:2] == (str(claude), "--print")
    assert option(launch, "--output-format") == "stream-json" and "--verbose" in launch.argv
    assert option(launch, "--session-id") == launch.session_id and option(launch, "--resume") is None
    assert len(launch.session_id or "") == 36
    assert launch.stdin is not None
    assert launch.stdin.decode() == (
        'You parse files.\n\n<teammate-message teammate_id="team-lead" summary="parse &lt;it&gt;">\n'
        "Parse the JSON, please.\n</teammate-message>\n"
        '<teammate-message teammate_id="team-lead" summary="s">\nand YAML\n</teammate-message>'
    )
    assert launch.marks_read  # the runner marks them read once the process started
    assert not any("Parse the JSON" in argument for argument in launch.argv)  # the prompt is on stdin only
    assert launch.cwd == tmp_path
    assert launch.env["TEAMDECK_MEMBER"] == "coder" and launch.env["TEAMDECK_RUN_ID"] == "r-01"


def test_later_runs_resume_the_members_session_without_the_roster_prompt(tmp_path: Path, claude: Path) -> None:
    keep_session(tmp_path / "home")
    launch = CLAUDE_CODE.launch(request(tmp_path, session_id=SESSION, messages=(message("next"),), prompt="Intro."))
    assert option(launch, "--resume") == SESSION and option(launch, "--session-id") is None
    assert launch.session_id == SESSION
    assert launch.stdin == format_block("team-lead", "next", summary="s").encode()


def test_a_session_s_first_run_appends_the_role_prompt_to_the_system_prompt_and_a_resumed_one_does_not(
    tmp_path: Path, claude: Path
) -> None:
    """Seed 002: the role prompt goes to the system prompt of the session's first run;
    the client keeps it for the session, so a ``--resume`` run does not pass it again."""
    role = "# Your role: crafter\n\nYou do the task you were given, and only that.\n"
    first = CLAUDE_CODE.launch(
        request(tmp_path, messages=(message("go"),), prompt="You parse files.", role_prompt=role)
    )
    assert option(first, "--append-system-prompt") == role.strip()
    assert first.stdin is not None and "Your role" not in first.stdin.decode()
    keep_session(tmp_path / "home")
    resumed = CLAUDE_CODE.launch(
        request(tmp_path, "r-02", session_id=SESSION, messages=(message("next"),), prompt="Intro.", role_prompt=role)
    )
    assert option(resumed, "--append-system-prompt") is None
    plain = CLAUDE_CODE.launch(request(tmp_path, "r-03", messages=(message("go"),)))
    assert option(plain, "--append-system-prompt") is None  # no role: nothing appended


def test_a_command_agent_finds_its_role_prompt_in_the_file_its_environment_names(tmp_path: Path) -> None:
    from teamdeck.runtime.command import COMMAND

    config = AgentConfig(runtime="command", options={"command": ["true"]})
    launch = COMMAND.launch(request(tmp_path, config=config, role_prompt="# Your role: gate\n"))
    named = Path(launch.env["TEAMDECK_ROLE_PROMPT"])
    assert named.parent == tmp_path / "runs" / "alpha" / "coder" / "r-01"
    assert named.read_text() == "# Your role: gate\n"
    plain = COMMAND.launch(request(tmp_path, "r-02", config=config))
    assert "TEAMDECK_ROLE_PROMPT" not in plain.env and not (tmp_path / "runs/alpha/coder/r-02/role.md").exists()


def test_a_session_the_client_lost_is_started_again_instead_of_failing_every_retry(
    tmp_path: Path, claude: Path
) -> None:
    """``--resume`` of a session the client no longer has exits 1 ("No conversation
    found with session ID"), on every retry: a new session, as on a first run."""
    launch = CLAUDE_CODE.launch(request(tmp_path, session_id=SESSION, messages=(message("next"),), prompt="Intro."))
    assert option(launch, "--resume") is None and option(launch, "--session-id") == launch.session_id != SESSION
    assert launch.stdin is not None and launch.stdin.decode().startswith("Intro.\n\n<teammate-message")


def test_a_run_with_nothing_unread_still_has_a_prompt(tmp_path: Path, claude: Path) -> None:
    keep_session(tmp_path / "home")
    launch = CLAUDE_CODE.launch(request(tmp_path, session_id=SESSION, trigger="wake"))
    assert launch.stdin == NOTHING_UNREAD.encode()


def test_teamdecks_mcp_server_is_attached_as_the_member_and_its_tools_allowed(tmp_path: Path, claude: Path) -> None:
    req = request(tmp_path)
    launch = CLAUDE_CODE.launch(req)
    config_path = Path(option(launch, "--mcp-config") or "")
    assert config_path == req.run_dir / "mcp.json"
    server = json.loads(config_path.read_text())["mcpServers"]["teamdeck"]
    assert [server["command"], *server["args"]] == [
        sys.executable,
        *("-m", "teamdeck", "mcp", "--workspace", str(tmp_path), "--team", "alpha", "--as", "coder"),
    ]
    assert option(launch, "--allowedTools") == "mcp__teamdeck"


def test_model_and_permission_mode_from_the_config_and_never_skip_permissions_unless_named(
    tmp_path: Path, claude: Path
) -> None:
    plain = CLAUDE_CODE.launch(request(tmp_path, "r-01"))
    assert option(plain, "--model") is None and option(plain, "--permission-mode") is None
    assert not any("dangerously" in argument for argument in plain.argv)

    configured = AgentConfig(options={"model": "sonnet", "permission_mode": "acceptEdits"})
    launch = CLAUDE_CODE.launch(request(tmp_path, "r-02", config=configured))
    assert (option(launch, "--model"), option(launch, "--permission-mode")) == ("sonnet", "acceptEdits")
    assert not any("dangerously" in argument for argument in launch.argv)

    named = AgentConfig(options={"dangerously_skip_permissions": True})
    assert "--dangerously-skip-permissions" in CLAUDE_CODE.launch(request(tmp_path, "r-03", config=named)).argv


def test_the_binary_comes_from_teamdeck_claude_then_path(
    tmp_path: Path, claude: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "pinned-claude"
    other.write_bytes(claude.read_bytes())
    other.chmod(0o755)
    monkeypatch.setenv("TEAMDECK_CLAUDE", str(other))
    assert CLAUDE_CODE.launch(request(tmp_path, "r-01")).argv[0] == str(other)
    in_config = AgentConfig(options={"env": {"TEAMDECK_CLAUDE": str(claude)}})  # the member's env wins
    assert CLAUDE_CODE.launch(request(tmp_path, "r-02", config=in_config)).argv[0] == str(claude)

    monkeypatch.setenv("TEAMDECK_CLAUDE", str(tmp_path / "missing"))
    with pytest.raises(Refused, match="TEAMDECK_CLAUDE names .*missing.* not an executable"):
        CLAUDE_CODE.launch(request(tmp_path, "r-03"))
    monkeypatch.delenv("TEAMDECK_CLAUDE")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(Refused, match="no `claude` on PATH"):
        CLAUDE_CODE.launch(request(tmp_path, "r-04"))


def test_teammate_flags_only_where_the_client_finds_the_team(
    tmp_path: Path, claude: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = CLAUDE_CODE.launch(request(tmp_path / "ws", "r-01"))
    assert option(elsewhere, "--agent-id") is None and "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS" not in elsewhere.env

    claude_dir = tmp_path / "home" / ".claude"
    launch = CLAUDE_CODE.launch(request(claude_dir, "r-02"))
    assert (option(launch, "--agent-id"), option(launch, "--agent-name"), option(launch, "--team-name")) == (
        "coder@alpha",
        "coder",
        "alpha",
    )
    assert launch.env["CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"] == "1"

    lead = replace(request(claude_dir, "r-lead"), member="team-lead")
    assert option(CLAUDE_CODE.launch(lead), "--agent-id") is None  # the flags make a session a teammate

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    assert option(CLAUDE_CODE.launch(request(tmp_path / "cfg", "r-03")), "--agent-id") == "coder@alpha"
    assert option(CLAUDE_CODE.launch(request(claude_dir, "r-04")), "--agent-id") is None


# --- the output log -------------------------------------------------------------------


def frames(session: str = SESSION, *, total: float = 0.0021, error: bool = False, text: str = "done") -> list[dict]:
    """The lines of a headless run as the pinned client writes them (trimmed)."""
    return [
        {"type": "system", "subtype": "init", "session_id": session, "model": "claude-sonnet-5-5"},
        {"type": "assistant", "session_id": session, "message": {"content": [{"type": "text", "text": text}]}},
        {
            "type": "result",
            "subtype": "success",
            "is_error": error,
            "result": text,
            "num_turns": 1,
            "session_id": session,
            "total_cost_usd": total,
            "usage": {
                "input_tokens": 1000,
                "output_tokens": 10,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "server_tool_use": {"web_search_requests": 0},
                "service_tier": "standard",
            },
            "modelUsage": {"claude-sonnet-5-5": {"inputTokens": 1000, "costUSD": total}},
        },
    ]


def write_log(req: RunRequest, lines: list[dict], tail: bytes = b"") -> None:
    req.output_log.write_bytes(b"".join(json.dumps(line).encode() + b"\n" for line in lines) + tail)


def test_outcome_reads_session_usage_cost_and_result_from_the_result_line(tmp_path: Path) -> None:
    req = request(tmp_path)
    write_log(req, frames(), tail=b'{"type":"assistant","session_id":"torn')  # F3: a partial last line
    outcome = CLAUDE_CODE.outcome(req, 0)
    assert outcome.session_id == SESSION and outcome.result == "done" and outcome.error is None
    assert outcome.usage is not None and (outcome.usage["input_tokens"], outcome.usage["output_tokens"]) == (1000, 10)
    assert outcome.cost_usd == pytest.approx(0.0021)


def test_a_resumed_session_reports_the_cost_this_run_added(tmp_path: Path, claude: Path) -> None:
    """The client's total_cost_usd counts the whole session on --resume (seen: 0.00207,
    then 0.00414 for the same one-request turn): a run is charged only what it added."""
    first = request(tmp_path, "r-01")
    write_log(first, frames(total=0.00207))
    other = request(tmp_path, "r-02")  # a run of another session (a fresh start after a lost one)
    write_log(other, frames("6d1e0f57-0000-4000-8000-000000000000", total=5.0))
    resumed = request(tmp_path, "r-03", session_id=SESSION)
    keep_session(tmp_path / "home")
    CLAUDE_CODE.launch(resumed)
    write_log(resumed, frames(total=0.00414))
    assert CLAUDE_CODE.outcome(resumed, 0).cost_usd == pytest.approx(0.00207)
    assert CLAUDE_CODE.outcome(first, 0).cost_usd == pytest.approx(0.00207)


def test_an_error_result_fails_the_run_with_the_clients_words(tmp_path: Path) -> None:
    req = request(tmp_path)
    write_log(req, frames(total=0, error=True, text="API Error: 400 overloaded"))
    outcome = CLAUDE_CODE.outcome(req, 1)
    assert outcome.error == "API Error: 400 overloaded" and outcome.cost_usd == 0


def test_an_error_result_without_text_fails_with_its_errors(tmp_path: Path) -> None:
    """What the client writes for ``--resume`` of an unknown session (exit 1)."""
    req = request(tmp_path)
    failed = {"type": "result", "subtype": "error_during_execution", "is_error": True, "session_id": SESSION}
    write_log(req, [failed | {"total_cost_usd": 0, "errors": [f"No conversation found with session ID: {SESSION}"]}])
    outcome = CLAUDE_CODE.outcome(req, 1)
    assert outcome.error == f"No conversation found with session ID: {SESSION}" and outcome.result is None


def test_no_result_line_keeps_the_session_and_fails_a_clean_exit(tmp_path: Path) -> None:
    req = request(tmp_path)
    write_log(req, frames()[:2])
    assert CLAUDE_CODE.outcome(req, 0).error == "Claude Code ended without a result line"
    killed = CLAUDE_CODE.outcome(req, -15)
    assert killed.session_id == SESSION and killed.error is None and killed.cost_usd is None
    assert CLAUDE_CODE.outcome(request(tmp_path, "r-empty"), None).session_id is None  # no log at all


def test_foreign_values_in_the_result_line_are_not_trusted(tmp_path: Path) -> None:
    req = request(tmp_path)
    [init, said, result] = frames()
    result |= {"total_cost_usd": "a lot", "session_id": 7, "usage": "lots"}
    req.output_log.write_bytes(
        b"\xff\xfe not json\n" + "\n".join(map(json.dumps, [init, said, result])).encode() + b"\n"
    )
    outcome = CLAUDE_CODE.outcome(req, 0)
    assert (outcome.session_id, outcome.usage, outcome.cost_usd, outcome.result) == (None, None, None, "done")


# --- settings -------------------------------------------------------------------------


def test_the_runtime_is_registered_and_its_settings_checked_with_one_message_each() -> None:
    assert BUILT_IN_RUNTIMES["claude-code"] is CLAUDE_CODE
    with pytest.raises(AgentsConfigError) as raised:
        check_agents(
            {
                "alpha/coder": {"permission_mode": "yolo"},
                "alpha/reviewer": {"permission_mode": "bypassPermissions"},
                "alpha/tester": {"command": ["python3", "t.py"]},
                "alpha/ok": {"permission_mode": "bypassPermissions", "dangerously_skip_permissions": True},
            }
        )
    text = str(raised.value)
    assert "alpha/coder" in text and "'yolo' is not one of acceptEdits" in text
    assert "alpha/reviewer" in text and "dangerously_skip_permissions: true" in text
    assert "alpha/tester" in text and "`command` is for runtime command" in text
    assert "alpha/ok" not in text
    assert len(raised.value.problems) == 3
