"""The scripted model endpoint itself (tests/support/scripted_model.py), spoken to as the
Messages API's clients do: streamed answers whose deltas join into the scripted text
and tool input, plain JSON answers, token counts, side requests, routing by prompt,
asides, and a request no script claims failing the test instead of passing silently."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from support.scripted_model import HARMLESS, INPUT_TOKENS, ScriptedModel, ScriptError, aside, call, say

TOOLS = [{"name": "Bash", "description": "run", "input_schema": {"type": "object"}}]


def post(model: ScriptedModel, body: dict[str, Any], path: str = "/v1/messages?beta=true") -> tuple[int, str, bytes]:
    request = urllib.request.Request(
        model.base_url + path,
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json", "x-claude-code-session-id": "s-1"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers["content-type"], answer.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["content-type"], err.read()


def turn_body(*messages: dict[str, Any], system: str = "You are the lead.") -> dict[str, Any]:
    return {"model": "m", "system": [{"type": "text", "text": system}], "messages": list(messages), "tools": TOOLS}


def streamed(body: dict[str, Any], model: ScriptedModel) -> list[tuple[str, dict[str, Any]]]:
    status, kind, raw = post(model, {**body, "stream": True})
    assert (status, kind) == (200, "text/event-stream")
    events = []
    for chunk in raw.decode().strip().split("\n\n"):
        name, data = chunk.split("\n")
        assert name.startswith("event: ") and data.startswith("data: ")
        events.append((name[7:], json.loads(data[6:])))
    return events


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def test_a_streamed_tool_call_and_text_join_from_their_deltas() -> None:
    long_command = "echo " + "x" * 200
    with ScriptedModel() as model:
        first = call("Bash", {"command": long_command}, text="Running it.")
        model.script("lead", first, say("y" * 100))
        events = streamed(turn_body(user("go")), model)
        names = [name for name, _ in events]
        assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
        assert all(name == data["type"] for name, data in events)
        text = "".join(d["delta"]["text"] for n, d in events if n == "content_block_delta" and d["index"] == 0)
        partial = "".join(
            d["delta"]["partial_json"] for n, d in events if n == "content_block_delta" and d["index"] == 1
        )
        assert text == "Running it." and json.loads(partial) == {"command": long_command}
        assert sum(1 for n, d in events if n == "content_block_delta" and d["index"] == 1) > 1  # really chunked
        start = next(d for n, d in events if n == "content_block_start" and d["index"] == 1)["content_block"]
        assert (start["type"], start["name"], start["input"]) == ("tool_use", "Bash", {})
        final = next(d for n, d in events if n == "message_delta")
        assert final["delta"]["stop_reason"] == "tool_use" and final["usage"]["output_tokens"] == first.output_tokens

        tool_use = {"role": "assistant", "content": list(first.content)}
        result = {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": first.content[1]["id"], "content": "ok"}],
        }
        status, kind, raw = post(model, turn_body(user("go"), tool_use, result))
        answer = json.loads(raw)
        assert (status, kind, answer["type"], answer["stop_reason"]) == (200, "application/json", "message", "end_turn")
        assert answer["content"] == [{"type": "text", "text": "y" * 100}]
        assert answer["usage"]["input_tokens"] == INPUT_TOKENS

        [first_turn, second_turn] = model.turns_of("lead")
        assert first_turn.session_id == "s-1" and second_turn.result_of("Bash") == "ok"
        assert second_turn.tool_uses("Bash")[0]["input"] == {"command": long_command}


def test_counts_side_requests_routing_and_the_end_of_a_script() -> None:
    with ScriptedModel() as model:
        model.script("teammate", say("teammate here"), when="You are the profiler.")
        model.script("lead", say("lead here"), when="You are the lead.")
        status, _kind, raw = post(model, turn_body(user("x")), path="/v1/messages/count_tokens?beta=true")
        assert (status, json.loads(raw)) == (200, {"input_tokens": INPUT_TOKENS})
        _status, _kind, raw = post(model, {"model": "m", "messages": [user("a title for this chat")]})
        assert json.loads(raw)["content"][0]["text"] == HARMLESS

        def answer(body: dict[str, Any]) -> str:
            return json.loads(post(model, body)[2])["content"][0]["text"]

        assert answer(turn_body(user("hi"), system="You are the profiler.")) == "teammate here"
        assert answer(turn_body(user("hi"))) == "lead here"
        done = turn_body(
            user("hi"), {"role": "assistant", "content": [{"type": "text", "text": "lead here"}]}, user("more")
        )
        assert answer(done) == HARMLESS  # past the end of its script
        status, _kind, _raw = post(model, {}, path="/v1/models")
        assert status == 404 and model.unknown() == ["POST /v1/models"]
        assert [r.kind for r in model.requests] == ["count_tokens", "side", "turn", "turn", "turn", "unknown"]
        assert model.saw("teammate", "You are the profiler.") and not model.saw("teammate", "lead here")
        assert model.saw("lead", "lead here")


def test_an_aside_keeps_the_script_at_its_step() -> None:
    with ScriptedModel() as model:
        look = aside(call("Bash", {"command": "ls"}))
        model.script("lead", lambda request: look if "ready" not in request.text else say("go on"), say("last"))
        history = [user("start")]
        first = json.loads(post(model, turn_body(*history))[2])
        assert first["content"][0]["name"] == "Bash"
        history += [
            {"role": "assistant", "content": first["content"]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": look.content[0]["id"], "content": "ready"}],
            },
        ]
        assert json.loads(post(model, turn_body(*history))[2])["content"][0]["text"] == "go on"
        with pytest.raises(ValueError, match="must call a tool"):
            aside(say("no"))


def test_a_request_no_script_claims_fails_the_test() -> None:
    model = ScriptedModel().start()
    try:
        model.script("lead", say("x"), when="You are the lead.")
        status, _kind, raw = post(model, turn_body(user("hi"), system="You are someone else."))
        assert status == 400 and json.loads(raw)["error"]["type"] == "invalid_request_error"
        with pytest.raises(ScriptError):
            model.check()
    finally:
        model.stop()
