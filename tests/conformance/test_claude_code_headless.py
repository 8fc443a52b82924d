"""Headless sessions of the pinned Claude Code (``claude -p``) against the scripted
model: the session id a caller chooses, resuming it, and the usage and cost read from
``--output-format json`` and ``stream-json``."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from claude_code import claude_env, make_home, run_claude
from scripted_model import INPUT_TOKENS, ScriptedModel, say

pytestmark = [pytest.mark.conformance, pytest.mark.slow]


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
