"""A claude-code run's stream-json output log made readable: what ``runs show``, the TUI's
run log and the give-up decision show instead of raw JSON (its runtime's ``read_log``).

Claude Code's ``--output-format stream-json`` writes one JSON object per line:
``system/init``, ``assistant`` (text and ``tool_use`` blocks), ``user`` (``tool_result``
blocks) and a last ``result``. Each becomes one short line per block; a line that is not
such an object (a line torn by the tail, anything else printed) is kept as it is, cut to
one line. Every
piece of text is sanitised (S1): the log is agent-written (teamdeck/runtime/log_text.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from teamdeck.runtime import log_text
from teamdeck.text import one_line

TEXT_CHARS = log_text.LINE_CHARS
"""The most of one text, tool input or tool result shown."""


def readable_tail(path: Path, limit: int = 4000) -> str:
    """The last ``limit`` characters of the readable log (whole lines), "" without a log."""
    return log_text.readable_tail(path, limit, readable_lines)


def readable(text: str) -> str:
    """Each line of ``text`` as one or more readable lines (see the module)."""
    return log_text.readable(text, readable_lines)


def readable_lines(raw: str) -> list[str]:
    """One line of the log: a stream-json frame's readable lines, else the line as it is."""
    frame = frame_of(raw)
    return frame_lines(frame) if frame is not None else log_text.plain_lines(raw)


def frame_of(raw: str) -> dict[str, Any] | None:
    """The stream-json frame one line of the log holds (a JSON object with a ``type``), or None."""
    if not raw.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) and isinstance(value.get("type"), str) else None


def frame_lines(frame: dict[str, Any]) -> list[str]:
    """One frame's readable lines: ``system/init``, ``assistant`` and ``user`` blocks, the
    ``result``; any other frame as its ``[type/subtype]``. Ripperdoc writes the same
    ``init``, ``assistant`` and ``user`` frames (runtime/ripperdoc/stream_json.py)."""
    kind = frame["type"]
    if kind == "system" and frame.get("subtype") == "init":
        servers = ", ".join(
            f"{server.get('name')} ({server.get('status')})"
            for server in frame.get("mcp_servers") or ()
            if isinstance(server, dict)
        )
        said = f"session {frame.get('session_id')} · model {frame.get('model')} · {frame.get('permissionMode')}"
        return [one_line(said + (f" · MCP: {servers}" if servers else ""), TEXT_CHARS)]
    if kind == "system" and frame.get("subtype") == "api_retry":  # the model unreachable or refusing
        delay = frame.get("retry_delay_ms")
        wait = f" in {delay / 1000:.1f} s" if isinstance(delay, int | float) and not isinstance(delay, bool) else ""
        said = f"model API retry {frame.get('attempt')}/{frame.get('max_retries')}{wait}"
        return [one_line(f"{said} ({frame.get('error_status') or frame.get('error')})", TEXT_CHARS)]
    if kind in ("assistant", "user"):
        message = frame.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        blocks = [content] if isinstance(content, str) else content if isinstance(content, list) else []
        return [line for block in blocks if (line := _block(block)) is not None]
    if kind == "result":
        return [_result(frame)]
    return [one_line(f"[{kind}{'/' + str(frame['subtype']) if frame.get('subtype') else ''}]", TEXT_CHARS)]


def _block(block: object) -> str | None:
    if isinstance(block, str):
        return one_line(f"» {block}", TEXT_CHARS)
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind == "text":
        return one_line(f"assistant: {block.get('text', '')}", TEXT_CHARS)
    if kind == "tool_use":
        arguments = json.dumps(block.get("input"), ensure_ascii=False)
        return one_line(f"→ {block.get('name')} {arguments}", TEXT_CHARS)
    if kind == "tool_result":
        content = block.get("content")
        said = content if isinstance(content, str) else " ".join(_texts(content))
        return one_line(f"{'← error' if block.get('is_error') else '←'} {said}", TEXT_CHARS)
    if kind == "thinking":
        return "(thinking)"
    return None


def _texts(content: object) -> list[str]:
    parts = content if isinstance(content, list) else []
    texts = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "text":
            texts.append(str(part.get("text", "")))
        elif isinstance(part, dict) and part.get("type") == "tool_reference":  # what ToolSearch loaded
            texts.append(f"loaded {part.get('tool_name')}")
    return texts


def _result(frame: dict[str, Any]) -> str:
    status = "error" if frame.get("is_error") is True else "done"
    facts = [f"{frame.get('num_turns')} turns"] if isinstance(frame.get("num_turns"), int) else []
    cost = frame.get("total_cost_usd")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        facts.append(f"session total ${cost:.4f}")
    denied = [d.get("tool_name") for d in frame.get("permission_denials") or () if isinstance(d, dict)]
    if denied:  # nobody approves a tool call in -p: what was refused is only said here
        facts.append(f"denied: {', '.join(map(str, denied))}")
    said = frame.get("result")
    errors = frame.get("errors")
    if not isinstance(said, str):
        said = "; ".join(str(error) for error in errors) if isinstance(errors, list) else ""
    return one_line(f"result ({status}{', ' + ', '.join(facts) if facts else ''}): {said}", TEXT_CHARS)
