"""What an ended Ripperdoc run reported, read from its stream-json output log.

Ripperdoc 0.6.2 ends a ``--print`` run with one ``result`` line whose keys are camelCase,
unlike Claude Code's: ``{"type": "result", "subtype": "success", "isError": false,
"result": "...", "numTurns": 1, "sessionId": "...", "totalCostUsd": 0.0, "usage":
{"input_tokens": ..., "output_tokens": ..., "cache_creation_input_tokens": ...,
"cache_read_input_tokens": ...}}``. ``totalCostUsd`` is this run's (its usage priced by
Ripperdoc's model catalog: 0 for a model it does not know), not the session's.

A failed model call is no error there: Ripperdoc answers it with an assistant text
``[API Error] <what the provider said>``, the result repeats it with ``isError: false``
and no ``usage``, and the process exits 0. That prefix (Ripperdoc's
``ProviderResponse.create_error``) is how the run is known to have failed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from teamdeck.model.reported import read_cost
from teamdeck.runtime.claude.stream_json import frame_of
from teamdeck.runtime.spec import Outcome

API_ERROR = "[API Error]"
"""How Ripperdoc's text answer to a failed model call begins."""
HEAD_BYTES = 256 * 1024
"""The most read of the log's start to find the ``system/init`` line (after a first
``control_response`` line that carries the whole system prompt)."""
SAID_CHARS = 2000
"""The most kept of a result or error text."""


def outcome_from(result: dict[str, Any]) -> Outcome:
    """The :class:`Outcome` of one Ripperdoc result line (values of the wrong type are
    left out: the log is agent-written)."""
    text = result.get("result")
    said = text if isinstance(text, str) else ""
    error = None
    if result.get("isError") is True:
        subtype = result.get("subtype")
        error = said[:SAID_CHARS] or f"the run reported an error ({subtype if isinstance(subtype, str) else 'error'})"
    elif said.startswith(API_ERROR):
        error = said[:SAID_CHARS]
    session = result.get("sessionId")
    usage = result.get("usage")
    cost = read_cost(result.get("totalCostUsd"), "totalCostUsd")
    return Outcome(
        session_id=session if isinstance(session, str) and session else None,
        usage=usage if isinstance(usage, dict) else None,
        cost_usd=cost.usd,
        cost_problem=cost.problem,
        error=error,
        result=said[:SAID_CHARS] if isinstance(text, str) else None,
    )


def init_session(log: Path) -> str | None:
    """The session id of the log's ``system/init`` line, for a run that ended before its
    result line; None when there is none to read."""
    try:
        with open(log, "rb") as handle:
            head = handle.read(HEAD_BYTES)
    except OSError:
        return None
    for raw in head.decode("utf-8", errors="replace").splitlines():
        frame = frame_of(raw)
        if frame is not None and frame["type"] == "system" and frame.get("subtype") == "init":
            session = frame.get("session_id")
            return session if isinstance(session, str) and session else None
    return None
