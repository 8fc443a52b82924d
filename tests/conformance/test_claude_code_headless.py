"""Headless sessions of the pinned Claude Code (``claude -p``) against the scripted
model: the session id a caller chooses, resuming it, and the usage and cost read from
``--output-format json`` and ``stream-json`` (whose frames are checked against the ones
seen so far, so a new version tells what it changed)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from support.claude_code import claude_env, make_home, pinned_version, run_claude
from support.scripted_model import INPUT_TOKENS, ScriptedModel, call, say

pytestmark = pytest.mark.slow


def test_json_session_id_resume_usage_and_cost(tmp_path: Path, claude: Path, model: ScriptedModel) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = claude_env(make_home(tmp_path / "home", trusted=[project]), model.env())
    model.script("solo", say("first answer"), say("second answer"))
    session = str(uuid.uuid4())

    first = run_claude(
        "-p", "the first prompt", "--output-format", "json", "--session-id", session, cwd=project, env=env
    )
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert (result["type"], result["subtype"], result["is_error"]) == ("result", "success", False)
    assert (result["session_id"], result["result"], result["num_turns"]) == (session, "first answer", 1)
    assert result["usage"]["input_tokens"] == INPUT_TOKENS
    assert result["usage"]["output_tokens"] == say("first answer").output_tokens
    assert result["total_cost_usd"] > 0
    [asked] = model.turns_of("solo")
    assert asked.session_id == session and "the first prompt" in asked.text

    second = run_claude("-p", "the second prompt", "--output-format", "json", "--resume", session, cwd=project, env=env)
    assert second.returncode == 0, second.stderr
    resumed = json.loads(second.stdout)
    assert (resumed["session_id"], resumed["result"]) == (session, "second answer")
    latest = model.turns_of("solo")[-1]
    assert "the first prompt" in latest.text and "first answer" in latest.text and "the second prompt" in latest.text


KNOWN_FRAMES = {("system", "init"), ("assistant", None), ("user", None), ("result", "success")}
"""The ``stream-json`` frames (type, subtype) of a headless session with a tool call, as
the pinned version writes them. A new version that writes others fails the test below
and names them: read them, then add them here."""
RESULT_FIELDS = {"session_id", "result", "is_error", "num_turns", "usage", "total_cost_usd", "modelUsage"}
"""What a supervisor reads from the ``result`` frame."""


def test_stream_json_frames_usage_and_cost(tmp_path: Path, claude: Path, model: ScriptedModel) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = claude_env(make_home(tmp_path / "home", trusted=[project]), model.env())
    replies = call("Bash", {"command": "echo from-the-tool", "description": "echo"}), say("the end")
    model.script("solo", *replies)
    session = str(uuid.uuid4())

    run = run_claude(
        "-p", "go", "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash", "--session-id", session,
        cwd=project,
        env=env,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    frames = [json.loads(line) for line in run.stdout.splitlines()]
    seen = {(frame["type"], frame.get("subtype")) for frame in frames}
    assert seen <= KNOWN_FRAMES, f"Claude Code {pinned_version()} writes frames not seen before: {seen - KNOWN_FRAMES}"
    assert all(frame["session_id"] == session for frame in frames)
    init = frames[0]
    assert (init["type"], init["claude_code_version"], init["apiKeySource"]) == (
        "system",
        pinned_version(),
        "ANTHROPIC_API_KEY",
    )
    tool_result = next(f for f in frames if f["type"] == "user")["message"]["content"][0]
    assert tool_result["type"] == "tool_result" and "from-the-tool" in str(tool_result["content"])

    result = frames[-1]
    assert RESULT_FIELDS <= set(result), f"the result frame lost {RESULT_FIELDS - set(result)}"
    assert (result["type"], result["is_error"], result["result"], result["num_turns"]) == (
        "result",
        False,
        "the end",
        2,
    )
    turns = model.turns_of("solo")
    assert len(turns) == 2 and "from-the-tool" in turns[1].result_of("Bash")
    assert result["usage"]["input_tokens"] == INPUT_TOKENS * len(turns)
    assert result["usage"]["output_tokens"] == sum(reply.output_tokens for reply in replies)
    costs = [usage["costUSD"] for usage in result["modelUsage"].values()]
    assert result["total_cost_usd"] == pytest.approx(sum(costs)) and result["total_cost_usd"] > 0


def test_a_subagent_follows_its_own_script(tmp_path: Path, claude: Path, model: ScriptedModel) -> None:
    """Routing by prompt: the lead's script spawns a subagent (the Agent tool, in the
    foreground); the subagent's requests go to its own script, and its answer is in the
    lead's next request."""
    project = tmp_path / "project"
    project.mkdir()
    env = claude_env(make_home(tmp_path / "home", trusted=[project]), model.env())
    model.script("helper", say("helper findings: 42 widgets"), when="Count the widgets.")
    spawn = {
        "description": "count widgets",
        "prompt": "Count the widgets.",
        "subagent_type": "general-purpose",
        "run_in_background": False,
    }
    model.script("lead", call("Agent", spawn), say("the lead is done"), when="Lead the widget audit.")

    run = run_claude("-p", "Lead the widget audit.", "--output-format", "json", cwd=project, env=env)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["result"] == "the lead is done"
    [helper] = model.turns_of("helper")
    assert "cc_is_subagent=true" in helper.system_text and "Count the widgets." in helper.first_user_text
    assert "Lead the widget audit." not in helper.text
    assert "helper findings: 42 widgets" in model.turns_of("lead")[-1].result_of("Agent")
    assert model.saw("lead", "helper findings: 42 widgets") and not model.saw("helper", "the lead is done")
