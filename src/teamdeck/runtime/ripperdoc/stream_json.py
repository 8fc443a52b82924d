"""A ripperdoc run's stream-json output log made readable: what ``runs show``, the TUI's
run log and the give-up decision show (its runtime's ``read_log``).

Ripperdoc 0.6.2's ``--print --output-format stream-json --verbose`` writes, one JSON
object per line: a ``control_response`` (its reply to its own ``initialize``, carrying
the whole system prompt), ``system/init`` (session, model profile, permission mode, MCP
servers), ``assistant`` and ``user`` frames shaped as Claude Code's, a ``result`` with
camelCase keys (``isError``, ``numTurns``, ``totalCostUsd``) and a last
``control_response``. The frames Claude Code also writes read as they do for it
(runtime/claude/stream_json.py); ``control_response`` frames are protocol replies and
are left out; a line that is no frame (a permission prompt drawn on stdout when a tool
needs approval) is kept as plain text. Every piece of text is sanitised (S1: the log is
agent-written).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from teamdeck.runtime import log_text
from teamdeck.runtime.claude.stream_json import frame_lines, frame_of
from teamdeck.runtime.ripperdoc.results import API_ERROR
from teamdeck.text import one_line

SKIPPED = ("control_response",)
"""Frames that say nothing to a person: the protocol's replies to Ripperdoc's own requests."""


def readable_tail(path: Path, limit: int = 4000) -> str:
    """The last ``limit`` characters of the readable log (whole lines), "" without a log."""
    return log_text.readable_tail(path, limit, readable_lines)


def readable_lines(raw: str) -> list[str]:
    """One line of the log: a frame's readable lines, else the line as it is."""
    frame = frame_of(raw)
    if frame is None:
        return log_text.plain_lines(raw)
    if frame["type"] in SKIPPED:
        return []
    if frame["type"] == "result":
        return [_result(frame)]
    return frame_lines(frame)


def _result(frame: dict[str, Any]) -> str:
    said = frame.get("result")
    text = said if isinstance(said, str) else ""
    failed = frame.get("isError") is True or text.startswith(API_ERROR)
    facts = [f"{frame['numTurns']} turns"] if isinstance(frame.get("numTurns"), int) else []
    cost = frame.get("totalCostUsd")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        facts.append(f"${cost:.4f}")
    usage = frame.get("usage")
    if isinstance(usage, dict) and isinstance(usage.get("input_tokens"), int):
        facts.append(f"{usage['input_tokens']} in / {usage.get('output_tokens')} out tokens")
    status = "error" if failed else "done"
    return one_line(f"result ({status}{', ' + ', '.join(facts) if facts else ''}): {text}", log_text.LINE_CHARS)
