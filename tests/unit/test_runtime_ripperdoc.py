"""``runtime: ripperdoc`` without the binary: what a run is asked to start (argv, stdin,
environment, the MCP config it writes) and what is read back from its output log. The
logs read here are the pinned Ripperdoc's own output, captured as the runtime launches it
(tests/fixtures/ripperdoc/0.6.2/runtime/, its README says how).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from support.claude_code import option as argv_option
from support.locations import REPO

import teamdeck
from teamdeck.clock import iso
from teamdeck.errors import Refused
from teamdeck.model.agents import AgentConfig
from teamdeck.model.run import RunRecord
from teamdeck.protocol.team.messaging.injection import format_block
from teamdeck.runtime.config import AgentsConfigError, check_agents
from teamdeck.runtime.registry import BUILT_IN_RUNTIMES, runtime_of_run
from teamdeck.runtime.ripperdoc.headless import RIPPERDOC, project_dir_name
from teamdeck.runtime.spec import Launch, Message, RunRequest
from teamdeck.runtime.wake import MCP_TOOLS, NOTHING_UNREAD
from teamdeck.store.runs import write_run
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.runs import run_output

CAPTURES = REPO / "tests" / "fixtures" / "ripperdoc" / "0.6.2" / "runtime"
SESSION = "0b5c3c51-5d0c-4a47-9a53-3c2f6f0a1d11"
RIPPERDOC_ENV = ("RIPPERDOC_CONFIG_DIR", "RIPPERDOC_MODEL", "RIPPERDOC_PROTOCOL", "RIPPERDOC_BASE_URL")


@pytest.fixture
def ripperdoc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An executable named ``ripperdoc``, first on PATH; HOME is a fresh directory and no
    ``RIPPERDOC_*`` variable is set."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "ripperdoc"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name in ("TEAMDECK_RIPPERDOC", "RIPPERDOC_API_KEY", *RIPPERDOC_ENV):
        monkeypatch.delenv(name, raising=False)
    return exe


def keep_session(config_dir: Path, cwd: Path, session: str = SESSION) -> Path:
    """The session's file where Ripperdoc keeps it for a run in ``cwd``."""
    kept = config_dir / "sessions" / project_dir_name(cwd) / f"{session}.jsonl"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text("{}\n")
    return kept


def message(text: str, *, sender: str = "team-lead", summary: str = "s") -> Message:
    return Message(
        sender, "message", "2026-03-01T12:00:00Z", text, format_block(sender, text, summary=summary), summary
    )


def request(
    root: Path,
    run_id: str = "r-01",
    *,
    session_id: str | None = None,
    options: dict[str, Any] | None = None,
    **more: Any,
) -> RunRequest:
    run_dir = root / "runs" / "alpha" / "coder" / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    return RunRequest(
        workspace=root,
        team="alpha",
        member="coder",
        run_id=run_id,
        run_dir=run_dir,
        config=AgentConfig(runtime="ripperdoc", options=options or {}),
        session_id=session_id,
        lead="team-lead",
        **more,
    )


def option(launch: Launch, name: str) -> str | None:
    return argv_option(launch.argv, name)


def captured(tmp_path: Path, name: str) -> RunRequest:
    """A request whose output log is the capture ``name``."""
    req = request(tmp_path, name)
    shutil.copyfile(CAPTURES / f"{name}.log", req.output_log)
    return req


# --- launch ---------------------------------------------------------------------------


def test_a_first_run_is_one_print_session_picked_by_id_with_the_prompt_on_stdin(
    tmp_path: Path, ripperdoc: Path
) -> None:
    asked = message("Parse the JSON, please.", summary="parse <it>")
    launch = RIPPERDOC.launch(request(tmp_path, messages=(asked, message("and YAML")), prompt="You parse files."))

    assert launch.argv[:2] == (str(ripperdoc), "--print")
    assert option(launch, "--input-format") == "auto"  # stdin is the prompt's text, not JSON messages
    assert option(launch, "--output-format") == "stream-json" and "--verbose" in launch.argv
    assert option(launch, "--session-id") == launch.session_id and option(launch, "--resume") is None
    assert len(launch.session_id or "") == 36
    assert launch.stdin is not None
    assert launch.stdin.decode() == (
        'You parse files.\n\n<teammate-message teammate_id="team-lead" summary="parse &lt;it&gt;">\n'
        "Parse the JSON, please.\n</teammate-message>\n"
        '<teammate-message teammate_id="team-lead" summary="s">\nand YAML\n</teammate-message>'
    )
    assert "-p" not in launch.argv and "--prompt" not in launch.argv
    assert not any("Parse the JSON" in argument for argument in launch.argv)  # argv is in run.yaml and ps
    assert launch.marks_read and launch.cwd == tmp_path
    assert launch.env["TEAMDECK_MEMBER"] == "coder" and launch.env["TEAMDECK_RUN_ID"] == "r-01"


def test_a_later_run_resumes_the_members_session_where_ripperdoc_keeps_it(tmp_path: Path, ripperdoc: Path) -> None:
    keep_session(tmp_path / "home" / ".ripperdoc", tmp_path)
    launch = RIPPERDOC.launch(request(tmp_path, session_id=SESSION, messages=(message("next"),), prompt="Intro."))
    assert option(launch, "--resume") == SESSION and option(launch, "--session-id") is None
    assert launch.session_id == SESSION
    assert launch.stdin == format_block("team-lead", "next", summary="s").encode()  # no roster prompt again


def test_the_session_is_looked_for_in_ripperdocs_config_dir_under_the_runs_working_directory(
    tmp_path: Path, ripperdoc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ripperdoc finds a session only among its working directory's, under
    ``$RIPPERDOC_CONFIG_DIR`` (else ``~/.ripperdoc``): kept elsewhere, it is not resumed
    (``--resume`` would fail on every retry: "No session found matching")."""
    config_dir = tmp_path / "rd-config"
    monkeypatch.setenv("RIPPERDOC_CONFIG_DIR", str(config_dir))
    (tmp_path / "src").mkdir()
    keep_session(config_dir, tmp_path / "src")
    elsewhere = RIPPERDOC.launch(request(tmp_path, session_id=SESSION, prompt="Intro."))
    assert option(elsewhere, "--resume") is None and elsewhere.session_id != SESSION
    assert elsewhere.stdin is not None and elsewhere.stdin.decode().startswith("Intro.")  # a new session's first run
    there = RIPPERDOC.launch(request(tmp_path, "r-02", session_id=SESSION, options={"cwd": "src"}))
    assert option(there, "--resume") == SESSION and there.cwd == tmp_path / "src"


def test_the_session_directory_is_named_as_ripperdoc_names_it() -> None:
    """Its ``sanitize_project_path``: the resolved path, each run of non-alphanumerics one
    ``-``, then 8 hex digits of its SHA-1 (as the captured sessions are kept)."""
    path = Path("/capture/ws")
    digest = hashlib.sha1(b"/capture/ws").hexdigest()[:8]
    assert project_dir_name(path) == f"capture-ws-{digest}"
    assert re.fullmatch(r"a-b-c-[0-9a-f]{8}", project_dir_name(Path("/a b/ü/c")))


def test_the_role_prompt_is_appended_on_every_run(tmp_path: Path, ripperdoc: Path) -> None:
    """Ripperdoc keeps no system prompt in a session (a resumed run's request carried the
    appended text only when the run was given it): every run passes it."""
    role = "# Your role: crafter\n\nYou do the task you were given, and only that.\n"
    first = RIPPERDOC.launch(request(tmp_path, messages=(message("go"),), role_prompt=role))
    keep_session(tmp_path / "home" / ".ripperdoc", tmp_path)
    resumed = RIPPERDOC.launch(request(tmp_path, "r-02", session_id=SESSION, role_prompt=role))
    assert option(first, "--append-system-prompt") == role.strip() == option(resumed, "--append-system-prompt")
    assert first.stdin is not None and "Your role" not in first.stdin.decode()
    plain = RIPPERDOC.launch(request(tmp_path, "r-03"))
    assert option(plain, "--append-system-prompt") is None


def test_a_run_with_nothing_unread_still_has_a_prompt(tmp_path: Path, ripperdoc: Path) -> None:
    keep_session(tmp_path / "home" / ".ripperdoc", tmp_path)
    launch = RIPPERDOC.launch(request(tmp_path, session_id=SESSION, trigger="wake"))
    assert launch.stdin == NOTHING_UNREAD.encode()


def test_teamdecks_mcp_server_is_attached_as_the_member_with_each_of_its_tools_allowed(
    tmp_path: Path, ripperdoc: Path
) -> None:
    req = request(tmp_path)
    launch = RIPPERDOC.launch(req)
    config_path = Path(option(launch, "--mcp-config") or "")
    assert config_path == req.run_dir / "mcp.json"
    server = json.loads(config_path.read_text())["mcpServers"]["teamdeck"]
    assert [server["command"], *server["args"]] == [
        sys.executable,
        *("-m", "teamdeck", "mcp", "--workspace", str(tmp_path), "--team", "alpha", "--as", "coder"),
    ]
    source = str(Path(teamdeck.__file__).resolve().parent.parent)  # Ripperdoc passes no PYTHONPATH itself
    assert server["env"]["PYTHONPATH"].split(os.pathsep)[0] == source
    allowed = (option(launch, "--allowedTools") or "").split(",")
    assert "mcp__teamdeck__message_agent" in allowed and "mcp__teamdeck__report_to_parent" in allowed
    assert allowed == [f"mcp__teamdeck__{tool}" for tool in MCP_TOOLS]


def test_the_allowed_tools_are_every_tool_teamdecks_mcp_server_offers() -> None:
    """Ripperdoc allows an MCP tool only by its full name: a tool added to the server and
    not to runtime/wake.py would be refused to every ripperdoc member."""
    from teamdeck.mcp_server.tools import TOOLS

    assert [declared.name for declared in TOOLS] == list(MCP_TOOLS)


def test_model_and_provider_are_ripperdocs_variables_and_the_key_stays_in_the_environment(
    tmp_path: Path, ripperdoc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = RIPPERDOC.launch(request(tmp_path, "r-01"))
    assert not any(name in plain.env for name in (*RIPPERDOC_ENV, "RIPPERDOC_API_KEY"))
    assert option(plain, "--model") is None and option(plain, "--permission-mode") is None

    monkeypatch.setenv("DOCS_TEAM_KEY", "sk-not-a-real-key")
    options = {
        "model": "gpt-4o-mini",
        "protocol": "openai_compatible",
        "base_url": "http://127.0.0.1:9/v1",
        "api_key_env": "DOCS_TEAM_KEY",
        "profile": "main",
        "permission_mode": "acceptEdits",
        "env": {"RIPPERDOC_MODEL": "overridden"},
    }
    req = request(tmp_path, "r-02", options=options)
    launch = RIPPERDOC.launch(req)
    assert (launch.env["RIPPERDOC_MODEL"], launch.env["RIPPERDOC_PROTOCOL"]) == ("gpt-4o-mini", "openai_compatible")
    assert launch.env["RIPPERDOC_BASE_URL"] == "http://127.0.0.1:9/v1"
    assert launch.env["RIPPERDOC_API_KEY"] == "sk-not-a-real-key"
    assert (option(launch, "--model"), option(launch, "--permission-mode")) == ("main", "acceptEdits")
    written = [path.read_text() for path in req.run_dir.iterdir()]
    assert not any("sk-not-a-real-key" in argument for argument in (*launch.argv, *written))

    monkeypatch.delenv("DOCS_TEAM_KEY")
    with pytest.raises(Refused, match=r"\$DOCS_TEAM_KEY \(api_key_env of alpha/coder\) is not set"):
        RIPPERDOC.launch(request(tmp_path, "r-03", options={"api_key_env": "DOCS_TEAM_KEY"}))


def test_yolo_only_when_named(tmp_path: Path, ripperdoc: Path) -> None:
    assert "--yolo" not in RIPPERDOC.launch(request(tmp_path, "r-01")).argv
    named = RIPPERDOC.launch(request(tmp_path, "r-02", options={"dangerously_skip_permissions": True}))
    assert "--yolo" in named.argv


def test_the_binary_comes_from_teamdeck_ripperdoc_then_path(
    tmp_path: Path, ripperdoc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "pinned-ripperdoc"
    other.write_bytes(ripperdoc.read_bytes())
    other.chmod(0o755)
    monkeypatch.setenv("TEAMDECK_RIPPERDOC", str(other))
    assert RIPPERDOC.launch(request(tmp_path, "r-01")).argv[0] == str(other)
    in_config = {"env": {"TEAMDECK_RIPPERDOC": str(ripperdoc)}}  # the member's env wins
    assert RIPPERDOC.launch(request(tmp_path, "r-02", options=in_config)).argv[0] == str(ripperdoc)
    monkeypatch.setenv("TEAMDECK_RIPPERDOC", str(tmp_path / "missing"))
    with pytest.raises(Refused, match="TEAMDECK_RIPPERDOC names"):
        RIPPERDOC.launch(request(tmp_path, "r-03"))
    monkeypatch.delenv("TEAMDECK_RIPPERDOC")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(Refused, match="no `ripperdoc` on PATH"):
        RIPPERDOC.launch(request(tmp_path, "r-04"))


# --- what the captured runs read as ---------------------------------------------------


def test_a_captured_run_reports_its_session_usage_cost_and_result(tmp_path: Path) -> None:
    first = RIPPERDOC.outcome(captured(tmp_path, "first-run"), 0)
    assert first.session_id is not None and len(first.session_id) == 36
    assert first.usage is not None and (first.usage["input_tokens"], first.usage["output_tokens"]) == (2000, 61)
    assert first.cost_usd == pytest.approx(0.006915)
    assert (first.error, first.result) == (None, "first run done")


def test_a_resumed_runs_cost_is_its_own_not_the_sessions(tmp_path: Path) -> None:
    """Ripperdoc prices each run's own usage (one request here, after two in the first run)."""
    first = RIPPERDOC.outcome(captured(tmp_path, "first-run"), 0)
    resumed = RIPPERDOC.outcome(captured(tmp_path, "resumed-run"), 0)
    assert resumed.session_id == first.session_id
    assert resumed.usage is not None and resumed.usage["input_tokens"] == 1000
    assert resumed.cost_usd == pytest.approx(0.003165) and resumed.result == "second run done"


def test_a_failed_model_call_fails_the_run_although_ripperdoc_says_success(tmp_path: Path) -> None:
    """The captured result line is ``subtype: success, isError: false`` and the process
    exited 0: only the ``[API Error]`` text says the model call failed."""
    outcome = RIPPERDOC.outcome(captured(tmp_path, "api-error"), 0)
    assert outcome.error is not None and outcome.error.startswith("[API Error] Invalid request: Error code: 400")
    assert "scripted overload: try later" in outcome.error
    assert outcome.usage is None and outcome.cost_usd == 0.0


def test_a_run_killed_before_its_result_keeps_the_session_of_its_init_line(tmp_path: Path) -> None:
    req = captured(tmp_path, "first-run")
    lines = req.output_log.read_text().splitlines(keepends=True)
    req.output_log.write_text("".join(line for line in lines if '"type": "result"' not in line))
    whole = RIPPERDOC.outcome(captured(tmp_path, "resumed-run"), 0)
    killed = RIPPERDOC.outcome(req, -15)
    assert killed.session_id == whole.session_id and killed.error is None  # the signal says it failed
    assert RIPPERDOC.outcome(req, 0).error == "Ripperdoc ended without a result line"
    req.output_log.write_text("not json\n")
    assert RIPPERDOC.outcome(req, 0).session_id is None


def test_an_error_result_line_fails_with_ripperdocs_words(tmp_path: Path) -> None:
    req = request(tmp_path)
    said = {"type": "result", "subtype": "error_during_execution", "isError": True, "result": "Query was cancelled"}
    req.output_log.write_text(json.dumps(said) + "\n")
    assert RIPPERDOC.outcome(req, 1).error == "Query was cancelled"
    req.output_log.write_text(json.dumps({**said, "result": ""}) + "\n")
    assert RIPPERDOC.outcome(req, 1).error == "the run reported an error (error_during_execution)"


def test_foreign_values_in_the_result_line_are_not_trusted(tmp_path: Path) -> None:
    req = request(tmp_path)
    line = {"type": "result", "isError": "yes", "sessionId": 7, "usage": [1], "totalCostUsd": True, "result": "done"}
    req.output_log.write_text(json.dumps(line) + "\n")
    outcome = RIPPERDOC.outcome(req, 0)
    assert (outcome.session_id, outcome.usage, outcome.cost_usd, outcome.error) == (None, None, None, None)
    req.output_log.write_text(json.dumps({**line, "totalCostUsd": float("nan")}).replace("NaN", "1e999") + "\n")
    assert RIPPERDOC.outcome(req, 0).cost_usd is None


def test_the_captured_log_reads_as_its_session_tool_calls_and_result(tmp_path: Path) -> None:
    shown = RIPPERDOC.read_log(captured(tmp_path, "first-run").output_log, 4000)
    lines = shown.splitlines()
    assert lines[0].startswith("session ") and lines[0].endswith(" · model main · default · MCP: teamdeck (connected)")
    assert lines[1].startswith('→ mcp__teamdeck__message_agent {"member": "team-lead", "summary": "parser plan"')
    assert lines[2].startswith("← {")  # what the tool returned
    assert lines[3:] == [
        "assistant: first run done",
        "result (done, 2 turns, $0.0069, 2000 in / 61 out tokens): first run done",
    ]
    assert "control_response" not in shown and "# Intro" not in shown  # the protocol replies are left out
    failed = RIPPERDOC.read_log(captured(tmp_path, "api-error").output_log, 4000).splitlines()
    assert failed[-1].startswith("result (error, 1 turns, $0.0000): [API Error] Invalid request")


def test_the_runs_view_reads_a_ripperdoc_runs_log_through_its_runtime(ws: Workspace) -> None:
    """What ``runs show`` and the TUI's run log show (view/readers/runs.run_output): the
    runtime recorded in run.yaml reads the log."""
    record = RunRecord(
        id="r-01", team="alpha", member="coder", runtime="ripperdoc", trigger="message", state="ended",
        createdAt=iso(ws.clock()),
    )  # fmt: skip
    shutil.copyfile(CAPTURES / "resumed-run.log", write_run(ws, record) / "output.log")
    shown = run_output(ws, record)["output.log"]
    assert runtime_of_run("ripperdoc") is RIPPERDOC
    assert shown.endswith(
        "assistant: second run done\nresult (done, 1 turns, $0.0032, 1000 in / 11 out tokens): second run done"
    )
    assert "control_response" not in shown


# --- settings -------------------------------------------------------------------------


def test_the_runtime_is_registered_and_its_settings_checked_with_one_message_each() -> None:
    assert BUILT_IN_RUNTIMES["ripperdoc"] is RIPPERDOC
    with pytest.raises(AgentsConfigError) as raised:
        check_agents(
            {
                "defaults": {"runtime": "ripperdoc"},
                "alpha/coder": {"permission_mode": "manual"},
                "alpha/reviewer": {"permission_mode": "bypassPermissions"},
                "alpha/tester": {"command": ["python3", "t.py"]},
                "alpha/writer": {"protocol": "openai"},
                "alpha/keyed": {"api_key_env": "sk-abc-123"},
                "alpha/typed": {"base_url": 8080},
                "alpha/ok": {
                    "model": "gpt-4o-mini",
                    "protocol": "openai_compatible",
                    "api_key_env": "OPENAI_API_KEY",
                    "permission_mode": "bypassPermissions",
                    "dangerously_skip_permissions": True,
                },
            }
        )
    lines = str(raised.value).splitlines()
    assert lines == [
        '.teamdeck.yaml agents."alpha/typed".base_url: must be a string',
        ".teamdeck.yaml agents.\"alpha/coder\".permission_mode: 'manual' is not one of default, acceptEdits, "
        "plan, dontAsk, bypassPermissions",
        '.teamdeck.yaml agents."alpha/reviewer".permission_mode: bypassPermissions skips every permission check: '
        "say so with dangerously_skip_permissions: true",
        '.teamdeck.yaml agents."alpha/tester".command: runtime ripperdoc runs Ripperdoc; `command` is for runtime '
        "command",
        ".teamdeck.yaml agents.\"alpha/writer\".protocol: 'openai' is not one of anthropic, openai_compatible, "
        "gemini, oauth",
        '.teamdeck.yaml agents."alpha/keyed".api_key_env: must name an environment variable (the key is never '
        "written here)",
    ]
