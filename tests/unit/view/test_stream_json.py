"""A run's stream-json output log as ``runs show``, the TUI's run log and the give-up
decision show it: one readable line per block, other lines kept, agent text sanitised
(S1). The lines have the shape the pinned Claude Code writes (docs/runtime-claude-code.md);
tests/conformance/test_claude_code_runtime.py reads a real one."""

from __future__ import annotations

import json
from pathlib import Path

from teamdeck.runtime.claude.stream_json import readable, readable_tail
from teamdeck.runtime.log_text import READ_BYTES

SESSION = "64dbb023-bb15-493a-bf80-1d5e7fd2dc65"
INIT = {
    "type": "system",
    "subtype": "init",
    "session_id": SESSION,
    "model": "claude-sonnet-5-5",
    "permissionMode": "acceptEdits",
    "mcp_servers": [{"name": "teamdeck", "status": "connected", "source": "dynamic"}],
}
SEARCH = {
    "type": "assistant",
    "message": {"content": [{"type": "tool_use", "id": "t1", "name": "ToolSearch", "input": {"query": "select:x"}}]},
}
LOADED = {
    "type": "user",
    "message": {
        "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "tool_reference", "tool_name": "x"}]}
        ]
    },
}
DENIED = {
    "type": "user",
    "message": {
        "content": [{"type": "tool_result", "tool_use_id": "t2", "is_error": True, "content": "needs approval"}]
    },
}
SAID = {"type": "assistant", "message": {"content": [{"type": "thinking"}, {"type": "text", "text": "All done."}]}}
RESULT = {"type": "result", "subtype": "success", "is_error": False, "num_turns": 3, "total_cost_usd": 0.00699}
RESULT["result"] = "All done."


def log(*frames: dict) -> str:
    return "".join(json.dumps(frame) + "\n" for frame in frames)


def test_each_frame_becomes_one_line_per_block() -> None:
    assert readable(log(INIT, SEARCH, LOADED, DENIED, SAID, RESULT)).splitlines() == [
        f"session {SESSION} · model claude-sonnet-5-5 · acceptEdits · MCP: teamdeck (connected)",
        '→ ToolSearch {"query": "select:x"}',
        "← loaded x",
        "← error needs approval",
        "(thinking)",
        "assistant: All done.",
        "result (done, 3 turns, session total $0.0070): All done.",
    ]


def test_the_result_names_the_tool_calls_nobody_approved() -> None:
    denials = [{"tool_name": "Bash", "tool_use_id": "t2", "tool_input": {}}, {"tool_name": "Write"}]
    assert readable(log(RESULT | {"permission_denials": denials})) == (
        "result (done, 3 turns, session total $0.0070, denied: Bash, Write): All done."
    )


def test_a_model_api_retry_says_how_often_and_why() -> None:
    """Seen with the model unreachable: the client retries 10 times, minutes in all."""
    retry = {"type": "system", "subtype": "api_retry", "attempt": 6, "max_retries": 10, "retry_delay_ms": 16006}
    assert (
        readable(log(retry | {"error_status": None, "error": "unknown"})) == "model API retry 6/10 in 16.0 s (unknown)"
    )
    assert readable(log(retry | {"error_status": 529})).endswith("(529)")


def test_an_error_result_shows_the_clients_errors() -> None:
    failed = {"type": "result", "subtype": "error_during_execution", "is_error": True, "errors": ["No conversation"]}
    assert readable(log(failed)) == "result (error): No conversation"


def test_other_lines_are_kept_and_unknown_frames_named() -> None:
    text = "plain output of a command agent\n" + log({"type": "stream_event", "event": {}}) + '{"torn": \n[1, 2]\n'
    assert readable(text).splitlines() == ["plain output of a command agent", "[stream_event]", '{"torn":', "[1, 2]"]


def test_agent_text_cannot_drive_the_terminal() -> None:
    """S1: escape sequences and controls in what the model said never reach the screen."""
    hostile = {
        "type": "assistant",
        "message": {"content": [{"type": "text", "text": "hi \x1b]52;c;ZXZpbA==\x07\x1b[2J"}]},
    }
    shown = readable(log(hostile) + "raw \x1b[31mred\x9b\n")
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown
    assert shown.startswith("assistant: hi")


def test_the_tail_keeps_whole_lines_of_a_long_log(tmp_path: Path) -> None:
    path = tmp_path / "output.log"
    assert readable_tail(path) == ""  # no log yet
    filler = {"type": "assistant", "message": {"content": [{"type": "text", "text": "x" * 5000}]}}
    path.write_text(log(INIT, *[filler] * (READ_BYTES // 5000 + 2), SAID, RESULT))
    shown = readable_tail(path, limit=400)
    assert shown.splitlines()[-2:] == [
        "assistant: All done.",
        "result (done, 3 turns, session total $0.0070): All done.",
    ]
    assert len(shown) <= 400 and all(
        line.startswith(("assistant: ", "(thinking)", "result (")) for line in shown.splitlines()
    )
