"""Reading and writing Claude Code's JSON files (inboxes, config.json, task files).

Claude Code rewrites an inbox in place, so a reader can catch it half-written (empty
or truncated): :func:`read_json_retrying` tries a few times with a short backoff before
it reports the file. :func:`encode_pretty` writes JSON the way Claude Code does
(``JSON.stringify(value, null, 2)``: two-space indent, non-ASCII kept, no final newline).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from teamdeck.errors import InvalidFile
from teamdeck.store.loaders import parse_json, read_capped

CLAUDE_MAX_BYTES = 32 * 1024 * 1024
"""Cap on one Claude Code JSON file: busy inboxes reach megabytes (B15)."""

RETRY_DELAYS_S = (0.005, 0.02, 0.05)
"""Pauses between attempts at a file that may be mid-write (then it is reported)."""

_JSON_NAMES = {
    dict: "object",
    list: "array",
    str: "string",
    bool: "boolean",
    int: "number",
    float: "number",
    type(None): "null",
}


def json_type_name(value: Any) -> str:
    """The JSON name of a parsed value's type (``object``, ``array``...)."""
    return _JSON_NAMES.get(type(value), type(value).__name__)


def read_json_retrying(
    path: Path, expect: type, *, shown: Path | str | None = None, delays: tuple[float, ...] = RETRY_DELAYS_S
) -> Any:
    """Parse ``path`` as JSON of type ``expect`` (``list`` or ``dict``), retrying while
    it may be mid-write.

    Args:
        path: the file.
        expect: the top-level type it must have.
        shown: how to name the file in errors (defaults to ``path``).
        delays: the pauses between attempts (one more attempt than pauses).

    Returns:
        The parsed value.

    Raises:
        FileNotFoundError: the file does not exist (callers decide what that means).
        InvalidFile: still empty, invalid or of the wrong type after every attempt, or
            not readable at all (at once: a link out of the workspace, too big, EACCES).
    """
    return read_json_with_bytes(path, expect, shown=shown, delays=delays)[1]


def read_json_with_bytes(
    path: Path, expect: type, *, shown: Path | str | None = None, delays: tuple[float, ...] = RETRY_DELAYS_S
) -> tuple[bytes, Any]:
    """:func:`read_json_retrying`, also returning the bytes that were parsed."""
    name = shown or path
    problem: InvalidFile | None = None
    for attempt in range(len(delays) + 1):
        if attempt:
            time.sleep(delays[attempt - 1])
        data = read_capped(path, CLAUDE_MAX_BYTES)  # unreadable (a link out, EACCES): no retry helps
        try:
            if not data.strip():
                raise InvalidFile(name, "", "empty file")
            value = parse_json(data, Path(name), limit=CLAUDE_MAX_BYTES)
        except InvalidFile as err:
            problem = err
            continue
        if isinstance(value, expect):
            return data, value
        problem = InvalidFile(name, "", f"expected a JSON {json_type_name(expect())} (got {json_type_name(value)})")
    assert problem is not None
    raise problem


def encode_pretty(value: Any) -> bytes:
    """``value`` as Claude Code writes its files: 2-space indent, UTF-8, no final newline.

    Text holding a lone surrogate (legal in JSON as ``\\ud800``) is written with ASCII
    escapes instead, so its meaning survives.
    """
    text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, indent=2, ensure_ascii=True, allow_nan=False).encode("ascii")


def append_pretty(data: bytes, empty: bool, element: Any) -> bytes:
    """The bytes of ``data`` (a JSON array, ``empty`` or not) with ``element`` appended,
    leaving every existing byte as it was.

    For a file Claude Code wrote this equals ``encode_pretty(array + [element])``, at a
    fraction of the cost of re-encoding the whole array (the pretty encoder is pure
    Python); a file formatted otherwise keeps its own formatting, plus our element.
    """
    body = data.rstrip()
    if empty or not body.endswith(b"]"):
        return b"[\n" + pretty_element(element) + b"\n]"
    return body[:-1].rstrip() + b",\n" + pretty_element(element) + b"\n]"


def pretty_element(element: Any) -> bytes:
    """``element`` as it stands in an array Claude Code wrote: pretty, each line indented
    by two (what :func:`append_pretty` splices in, and what a writer looks for to
    confirm its append landed)."""
    return b"\n".join(b"  " + line for line in encode_pretty(element).split(b"\n"))
