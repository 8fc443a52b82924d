"""A client's request is applied at most once, however often it is sent (``teamdeck
serve``: a connection that drops after a request was written leaves the client not
knowing whether it was taken, and it may send it again, over a new connection to a new
server process).

A request whose id was taken before is answered from its record, before anything
else is looked at. Before a new one's action runs, the request is **taken**: ``.teamdeck/requests/<id>.taken.json``,
written once (store/write_once.py: it appears whole or not at all, and a second writer
with the same bytes learns the name was taken). Once the action ended, its outcome is
recorded beside it (``<id>.done.json``, written once too). A request taken before is
not run again: its recorded outcome is given back, or, when none was recorded (the
server died mid-action, or is still at it), it is said to be unknown, for the person
to check.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from teamdeck.clock import iso
from teamdeck.errors import Conflict, InvalidFile, Refused
from teamdeck.store.files import read_optional
from teamdeck.store.json_text import dumps_json
from teamdeck.store.paths import REQUEST_ID_RE
from teamdeck.store.workspace import Workspace
from teamdeck.store.write_once import write_once

__all__ = ["REQUEST_ID_RE", "Earlier", "earlier_request", "record_outcome", "take_request"]


@dataclass(frozen=True)
class Earlier:
    """What became of a request taken before.

    Attributes:
        done: its outcome was recorded (``ok`` and ``text`` hold it); False: it was
            taken and never finished as far as the workspace knows.
        ok: whether it was done (when ``done``).
        text: the line its action gave (when ``done``).
    """

    done: bool
    ok: bool = False
    text: str = ""


def earlier_request(ws: Workspace, request_id: str, op: str, args: dict[str, Any]) -> Earlier | None:
    """What became of request ``request_id``, if it was taken before (None: it was not).
    Asked before the request is even built: a request done before must be answered
    from its record, though what it acted on has changed since (the decision it
    answered is no longer waiting).

    Raises:
        Refused: the id was taken by another request (other op or arguments).
    """
    raw = read_optional(ws.request_record(request_id, "taken"))
    if raw is None:
        return None
    if raw != _asked(request_id, op, args):
        raise _used_before(request_id)
    return _earlier(ws, request_id)


def take_request(ws: Workspace, request_id: str, op: str, args: dict[str, Any]) -> Earlier | None:
    """Take request ``request_id`` before its action runs.

    Returns:
        None: it is new and now taken (run it, then :func:`record_outcome`). An
        :class:`Earlier`: it was taken meanwhile (another server); do not run it.

    Raises:
        Refused: the id was taken by another request (other op or arguments).
        WriteFailed: the record could not be written (nothing was taken).
    """
    try:
        if write_once(ws.request_record(request_id, "taken"), _asked(request_id, op, args)):
            return None
    except Conflict:
        raise _used_before(request_id) from None
    return _earlier(ws, request_id)


def record_outcome(ws: Workspace, request_id: str, *, ok: bool, text: str) -> None:
    """Record how request ``request_id`` ended (once per request: the record never changes).

    Raises:
        Conflict: an outcome was recorded for it already.
        WriteFailed: the record could not be written.
    """
    write_once(
        ws.request_record(request_id, "done"),
        (dumps_json({"id": request_id, "ok": ok, "text": text, "at": iso(ws.clock())}) + "\n").encode(),
    )


def _asked(request_id: str, op: str, args: dict[str, Any]) -> bytes:
    """The taken record's bytes: the same request always gives the same ones."""
    return (dumps_json({"id": request_id, "op": op, "args": args}) + "\n").encode()


def _used_before(request_id: str) -> Refused:
    return Refused(f"request id {request_id} was used before for another request; nothing was done (send a new id)")


def _earlier(ws: Workspace, request_id: str) -> Earlier:
    path = ws.request_record(request_id, "done")
    raw = read_optional(path)
    if raw is None:
        return Earlier(done=False)
    try:
        done = json.loads(raw)
        return Earlier(done=True, ok=bool(done["ok"]), text=str(done["text"]))
    except (ValueError, KeyError, TypeError):
        raise InvalidFile(path, "", "not a request outcome (a JSON object with ok and text)") from None
