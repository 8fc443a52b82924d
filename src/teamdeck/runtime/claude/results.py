"""Reading a run's report from its output log: the last stream-json ``result`` line.

Claude Code's ``--output-format stream-json`` ends with one line
``{"type": "result", "is_error": false, "session_id": ..., "total_cost_usd": ...,
"usage": {...}, "result": "..."}``. Any program run by ``runtime: command`` may print the
same line to report its session, usage and cost (so budgets apply to it too). Lines that
are not JSON objects are skipped; a torn last line is ignored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from teamdeck.runtime.spec import Outcome

READ_BYTES = 256 * 1024
"""Only the end of the log is read: the result is the last line."""


def last_result(log: Path) -> dict[str, Any] | None:
    """The last ``{"type": "result", ...}`` line of ``log``, or None."""
    try:
        with open(log, "rb") as handle:
            size = log.stat().st_size
            handle.seek(max(0, size - READ_BYTES))
            data = handle.read()
    except OSError:
        return None
    for raw in reversed(data.splitlines()):
        raw = raw.strip()
        if not raw.startswith(b"{"):
            continue
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("type") == "result":
            return value
    return None


def outcome_of(log: Path) -> Outcome:
    """The :class:`Outcome` a result line reports (empty without one)."""
    result = last_result(log)
    return Outcome() if result is None else outcome_from(result)


def outcome_from(result: dict[str, Any]) -> Outcome:
    """The :class:`Outcome` of one result line; a reported error in the client's own
    words (its ``result`` text, else its ``errors``: "API Error: 400 …", "No conversation
    found with session ID: …")."""
    cost = result.get("total_cost_usd")
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
        cost_usd=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
        error=error,
        result=text[:2000] if isinstance(text, str) else None,
    )
