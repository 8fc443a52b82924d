"""``teamdeck run`` running a member as the pinned Ripperdoc (``runtime: ripperdoc``)
against the scripted model: what a user sees after ``teamdeck send``.

- ``teamdeck send`` to a member: ``teamdeck run`` starts its Ripperdoc session, whose
  model's first request carries the message exactly as ``teamdeck inbox --inject`` prints
  it; the model answers with teamdeck's ``message_agent`` (the MCP server the run
  attached as that member, its tools allowed) and the answer is in the lead's inbox; the
  run's record holds the session id, usage, cost and result read from the result line,
  and ``runs show`` reads the log.
- A second message resumes the same session (``--resume``): the model's request carries
  the first run's turns, then the new message.
- A model call that fails fails the run (Ripperdoc itself reports it as a success).

Each runner is ``teamdeck run --once`` in a subprocess with Ripperdoc's environment (a
temporary HOME and config directory, a dummy key, ``$TEAMDECK_RIPPERDOC`` naming the
pinned binary); the model and its provider come from the member's ``.teamdeck.yaml``
options, the scripted model on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from support.claude_code import option
from support.mcp_clients import TEAM, make_workspace
from support.ripperdoc_client import binary
from support.scripted_model import INPUT_TOKENS, Reply, Request, ScriptedModel, call, refuse, say
from test_claude_code_runtime import configure, injected, prompt_of, run_once, runs_of, teamdeck

pytestmark = pytest.mark.slow

MODEL = "claude-sonnet-4-5-20250929"
"""A model Ripperdoc's catalog prices: the run reports a cost."""


@pytest.fixture
def ripperdoc() -> Path:
    return binary()


def runner_env(home: Path, exe: Path) -> dict[str, str]:
    """``teamdeck run``'s environment: Ripperdoc's HOME and config directory fresh, the
    dummy key (the only one Ripperdoc ever gets), no provider setting of the machine's."""
    home.mkdir(parents=True, exist_ok=True)
    kept = {name: value for name, value in os.environ.items() if not name.startswith(("RIPPERDOC_", "ANTHROPIC_"))}
    return {
        **kept,
        "HOME": str(home),
        "RIPPERDOC_CONFIG_DIR": str(home / ".ripperdoc"),
        "RIPPERDOC_API_KEY": "sk-test-dummy",
        "TEAMDECK_RIPPERDOC": str(exe),
        "TEAMDECK_WORKSPACE": "",
    }


def teamdeck_tool(tool: str, arguments: dict[str, Any]) -> Callable[[Request], Reply]:
    """A turn calling ``tool`` of teamdeck's MCP server, as a model can: Ripperdoc sends
    the server's tools with the first request, each named ``mcp__teamdeck__<tool>`` (marked
    ``defer_loading``, yet not behind its ToolSearch: their schemas are a small part of
    the model's context); the arguments are valid against the schema it sent."""

    def turn(request: Request) -> Reply:
        name = f"mcp__teamdeck__{tool}"
        offered = [offer["name"] for offer in request.body.get("tools") or ()]
        assert name in offered, f"{name} not offered; the tools: {offered}"
        jsonschema.validate(arguments, request.tool(name)["input_schema"])
        return call(name, arguments)

    return turn


def member(model: ScriptedModel) -> dict[str, str]:
    """A ripperdoc member's settings: its model and provider, the scripted one."""
    return {"runtime": "ripperdoc", "model": MODEL, "protocol": "anthropic", "base_url": model.base_url}


def test_send_runs_the_member_its_reply_reaches_the_lead_and_the_next_message_resumes_its_session(
    tmp_path: Path, ripperdoc: Path, model: ScriptedModel
) -> None:
    ws = make_workspace(tmp_path / "ws")
    root = ws.root
    configure(root, {"alpha/coder": member(model)})
    env = runner_env(tmp_path / "home", ripperdoc)
    reply = {"member": "team-lead", "summary": "parser plan", "text": "CODER-REPLY: JSON first, YAML after."}
    model.script(
        "coder",
        teamdeck_tool("message_agent", reply),
        say("first run done"),
        say("second run done"),
        when="Parse the JSON, please.",
    )

    sent = teamdeck(root, env, "send", TEAM, "coder", "Parse the JSON, please.", "--summary", "parse <json>")
    assert sent.returncode == 0, sent.stderr
    expected_prompt = injected(root, env, tmp_path, "coder")
    run_once(root, env)

    [(_, first)] = runs_of(root, TEAM, "coder")
    asked = model.turns_of("coder")
    assert prompt_of(asked[0]) == expected_prompt  # the unread message, as `inbox --inject` prints it
    assert expected_prompt.startswith('<teammate-message teammate_id="team-lead" summary="parse &lt;json&gt;">')
    assert asked[0].body["model"] == MODEL  # the member's own model and provider
    session = first["sessionId"]
    assert option(first["argv"], "--session-id") == session and option(first["argv"], "--resume") is None
    assert not any("Parse the JSON" in argument for argument in first["argv"])  # the prompt went on stdin

    lead_inbox = json.loads(ws.inbox(TEAM, "team-lead").read_text())
    assert [(m["from"], m["text"]) for m in lead_inbox] == [("coder", reply["text"])]  # through teamdeck's MCP server
    assert all(m["read"] for m in json.loads(ws.inbox(TEAM, "coder").read_text()))

    assert (first["state"], first["outcome"], first["exitStatus"]) == ("ended", "succeeded", 0)
    assert first["result"] == "first run done"
    assert first["usage"]["input_tokens"] == INPUT_TOKENS * len(asked)
    assert first["costUsd"] > 0
    shown = teamdeck(root, env, "runs", "show", first["id"])  # the output log, readable
    assert shown.returncode == 0, shown.stderr
    assert f"session {session} · model main · default · MCP: teamdeck (connected)" in shown.stdout
    assert '→ mcp__teamdeck__message_agent {"member": "team-lead"' in shown.stdout
    assert "assistant: first run done\nresult (done, 2 turns, $" in shown.stdout
    assert "control_response" not in shown.stdout

    sent = teamdeck(root, env, "send", TEAM, "coder", "Now the YAML.", "--summary", "yaml")
    assert sent.returncode == 0, sent.stderr
    run_once(root, env)

    [_, (_, second)] = runs_of(root, TEAM, "coder")
    assert option(second["argv"], "--resume") == session == second["sessionId"]
    latest = model.turns_of("coder")[-1]
    assert prompt_of(latest) == prompt_of(asked[0])  # the same conversation, continued
    assert "CODER-REPLY: JSON first" in latest.text and "first run done" in latest.text
    assert '<teammate-message teammate_id="team-lead" summary="yaml">\nNow the YAML.\n</teammate-message>' in (
        latest.text
    )
    assert (second["outcome"], second["result"]) == ("succeeded", "second run done")
    assert second["usage"]["input_tokens"] == INPUT_TOKENS  # this run's request only
    assert 0 < second["costUsd"] < first["costUsd"]  # Ripperdoc prices the run, not the session


def test_a_failed_model_call_fails_the_run_though_ripperdoc_reports_success(
    tmp_path: Path, ripperdoc: Path, model: ScriptedModel
) -> None:
    ws = make_workspace(tmp_path / "ws")
    configure(ws.root, {"alpha/coder": {**member(model), "retries": 0}})
    env = runner_env(tmp_path / "home", ripperdoc)
    model.script("coder", refuse("scripted overload: try later"), when="Parse the JSON, please.")
    sent = teamdeck(ws.root, env, "send", TEAM, "coder", "Parse the JSON, please.", "--summary", "json")
    assert sent.returncode == 0, sent.stderr
    run_once(ws.root, env)

    [(run_dir, run)] = runs_of(ws.root, TEAM, "coder")
    result = next(json.loads(line) for line in (run_dir / "output.log").read_text().splitlines() if '"result"' in line)
    assert (result["subtype"], result["isError"], run["exitStatus"]) == ("success", False, 0)  # Ripperdoc's word
    assert run["outcome"] == "failed"  # teamdeck's
    assert run["error"].startswith("[API Error] ") and "scripted overload: try later" in run["error"]
