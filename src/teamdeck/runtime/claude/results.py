"""Reading a run's report from its output log: the last stream-json ``result`` line.

Claude Code's ``--output-format stream-json`` ends with one line
``{"type": "result", "is_error": false, "session_id": ..., "total_cost_usd": ...,
"usage": {...}, "result": "..."}``. Any program run by ``runtime: command`` may print the
same line to report its session, usage and cost (so budgets apply to it too). Lines that
are not JSON objects are skipped, and so is a torn last line; the log is read from its
end in bounded blocks, so neither output printed after the result line nor a long
result text hides it. A result line that cannot be read (over :data:`RESULT_BYTES`, or
none in the last :data:`SCAN_BYTES` of a longer log) is a problem of the run's cost
(model/reported.py), never a run that cost nothing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from teamdeck.model.reported import read_cost
from teamdeck.runtime.spec import Outcome
from teamdeck.store.jsonl import lines_backwards

RESULT_BYTES = 16 * 1024 * 1024
"""The longest result line read (its ``result`` text is the agent's last words, any size)."""
SCAN_BYTES = 64 * 1024 * 1024
"""How far back from the end of the log the result line is looked for: the run's end
reads no more than this of a runaway log (the result is nearly always the last line)."""
HEAD_BYTES = 4096
"""How much of a line too long to read is looked at to tell a result line."""
_RESULT_HEAD = re.compile(rb'^\s*\{\s*"type"\s*:\s*"result"')


class Found(NamedTuple):
    """The log's last result line, or why none could be read.

    Attributes:
        result: the line, parsed, or None.
        problem: why a result line the run printed could not be read (too long, or
            too far from the end), or None: ``result`` is it, or there is none.
    """

    result: dict[str, Any] | None = None
    problem: str | None = None


def last_result(log: Path) -> dict[str, Any] | None:
    """The last ``{"type": "result", ...}`` line of ``log``, or None."""
    return find_result(log).result


def find_result(log: Path) -> Found:
    """The last ``{"type": "result", ...}`` line of ``log`` (whatever was printed after
    it), read backwards in bounded blocks. Lines that are not JSON objects are skipped,
    and so is a torn one; a result line longer than :data:`RESULT_BYTES` (one that
    begins as one) or none in the last :data:`SCAN_BYTES` of a longer log is a problem:
    the run may have reported a cost no one can read."""
    try:
        handle = open(log, "rb")
    except OSError:
        return Found()
    with handle:
        size = os.fstat(handle.fileno()).st_size
        floor = max(0, size - SCAN_BYTES)
        oversized: int | None = None  # the end of a line too long to read, until its start is known
        for end, raw in lines_backwards(handle, size, cap=RESULT_BYTES, unfinished=True, floor=floor):
            if oversized is not None and _begins_a_result(handle, end):
                return Found(problem=_too_long(oversized - end))
            oversized = end if raw is None else None
            result = _result_of(raw) if raw is not None else None
            if result is not None:
                return Found(result)
        if oversized is not None and floor == 0 and _begins_a_result(handle, 0):
            return Found(problem=_too_long(oversized))
        if floor > 0:
            return Found(problem=f"no result line in the last {SCAN_BYTES:,} bytes of a log of {size:,} bytes")
    return Found()


def _result_of(raw: bytes) -> dict[str, Any] | None:
    """``raw`` parsed when it is a result line (only a line that names one is parsed)."""
    raw = raw.strip()
    if not raw.startswith(b"{") or b'"result"' not in raw:
        return None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) and value.get("type") == "result" else None


def _begins_a_result(handle: BinaryIO, start: int) -> bool:
    """Whether the line at ``start`` of the open log begins as a result line."""
    handle.seek(start)
    return _RESULT_HEAD.match(handle.read(HEAD_BYTES)) is not None


def _too_long(size: int) -> str:
    return f"the result line is {size:,} bytes, over the limit of {RESULT_BYTES:,}; not read"


def outcome_of(log: Path) -> Outcome:
    """The :class:`Outcome` a result line reports (empty without one; only its problem
    when it could not be read)."""
    found = find_result(log)
    return Outcome(cost_problem=found.problem) if found.result is None else outcome_from(found.result)


def outcome_from(result: dict[str, Any]) -> Outcome:
    """The :class:`Outcome` of one result line; a reported error in the client's own
    words (its ``result`` text, else its ``errors``: "API Error: 400 …", "No conversation
    found with session ID: …")."""
    cost = read_cost(result.get("total_cost_usd"), "total_cost_usd")
    usage = result.get("usage")
    session = result.get("session_id")
    text = result.get("result")
    error = None
    if result.get("is_error") is True:
        listed = result.get("errors")
        errors = [item for item in listed if isinstance(item, str)] if isinstance(listed, list) else []
        subtype = result.get("subtype")
        said = text if isinstance(text, str) and text else "; ".join(errors)
        error = said[:2000] or (
            f"the run reported an error ({subtype})" if isinstance(subtype, str) else "the run reported an error"
        )
    return Outcome(
        session_id=session if isinstance(session, str) else None,
        usage=usage if isinstance(usage, dict) else None,
        cost_usd=cost.usd,
        cost_problem=cost.problem,
        error=error,
        result=text[:2000] if isinstance(text, str) else None,
    )
