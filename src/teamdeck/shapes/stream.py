"""The frames of ``teamdeck serve``'s stream: one JSON object per line, each naming
itself with ``"frame"`` (the server: serve/; a client: remote/).

docs/serve.md is the contract a client may rely on; this module is its code. The
client opens with ``hello`` (the protocol it speaks and the workspace it wants); the
server answers with its own ``hello``, a first ``state`` with every section, then a
``state`` with the sections that changed whenever the workspace changes, and one
``result`` per ``request``. A line the server cannot take is answered with a
``problem`` naming the line and what is wrong; the stream goes on.

A client's frames are parsed strictly (unknown fields refused, every string capped): a
peer is untrusted input like any file.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from teamdeck import __version__
from teamdeck.protocol.common.requests import REQUEST_ID_RE
from teamdeck.shapes.arguments import SHORT_CHARS, Short
from teamdeck.store.loaders import model_problem

PROTOCOL = 1
"""The stream's version. A client and a server speak to each other only when they
speak the same one; both say which they speak in their ``hello``."""
ACTOR_RE = r"^human:[A-Za-z0-9._@-]{1,40}(:[A-Za-z0-9._@-]{1,40})?$"
"""Who a request may say it acts for: a person (``human:<login>`` or ``human:<front>:<who>``),
never an agent: a front speaks for the people at it."""
MAX_LINE_BYTES = 256 * 1024
"""The longest line a server reads from a client (a request is a few KiB at most)."""
MAX_SERVER_LINE_BYTES = 64 * 1024 * 1024
"""The longest line a client reads from a server: a full state of a large workspace is
megabytes (10× of bench/: ~10 MB), never this; a longer line is dropped unparsed, so a
host that misbehaves cannot fill the client's memory."""


class FrameError(ValueError):
    """A line that is not a frame this side accepts; the text says what is wrong."""


class ClientHello(BaseModel):
    """The client's first frame: the protocol it speaks and the workspace to serve."""

    model_config = ConfigDict(extra="forbid")
    frame: Literal["hello"]
    protocol: int
    workspace: Annotated[str, StringConstraints(max_length=4096)] | None = None
    client: Short = ""


class Request(BaseModel):
    """An action asked of the workspace: ``op`` with its ``args`` (serve/requests.py
    says which ops there are and what each takes); ``id`` is the client's, the same
    when a request is sent again. ``by`` names the person a front acts for (``human:web:ana``),
    recorded as the actor; without it the server's own actor is."""

    model_config = ConfigDict(extra="forbid")
    frame: Literal["request"]
    id: Annotated[str, StringConstraints(pattern=REQUEST_ID_RE.pattern)]
    op: Annotated[str, StringConstraints(max_length=40)]
    args: dict[str, Any] = Field(default_factory=dict)
    by: Annotated[str, StringConstraints(pattern=ACTOR_RE)] | None = None


class Query(BaseModel):
    """A question about the workspace, answered from what the server shows and changing
    nothing (so it is not recorded, and may be sent again freely): ``what`` with its
    ``args`` (serve/queries.py says which there are)."""

    model_config = ConfigDict(extra="forbid")
    frame: Literal["query"]
    id: Annotated[str, StringConstraints(pattern=REQUEST_ID_RE.pattern)]
    what: Annotated[str, StringConstraints(max_length=40)]
    args: dict[str, Any] = Field(default_factory=dict)


ClientFrame = ClientHello | Request | Query


def parse_client_line(line: bytes) -> ClientFrame:
    """One line from a client as its frame.

    Raises:
        FrameError: too long, not JSON, not an object, or not a frame a client sends
            (the message names the field and the problem).
    """
    if len(line) > MAX_LINE_BYTES:
        raise FrameError(f"line of {len(line):,} bytes, over the limit of {MAX_LINE_BYTES:,}")
    try:
        data = json.loads(line)
    except ValueError as err:
        raise FrameError(f"invalid JSON: {err}") from None
    if not isinstance(data, dict):
        raise FrameError("not a JSON object")
    kind = data.get("frame")
    models: dict[object, type[ClientHello] | type[Request] | type[Query]] = {
        "hello": ClientHello,
        "request": Request,
        "query": Query,
    }
    model = models.get(kind)
    if model is None:
        raise FrameError(f"unknown frame {str(kind)[:40]!r} (a client sends hello, request or query)")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise FrameError(f"{kind}: {model_problem(err)}") from None


def text_of(frame: dict[str, Any]) -> str:
    """A frame as compact JSON text, non-ASCII kept (a WebSocket message)."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))


def parse_hello(line: bytes) -> ClientHello:
    """A client's first line, which must be its hello.

    Raises:
        FrameError: not a frame, or another frame than hello.
    """
    hello = parse_client_line(line)
    if not isinstance(hello, ClientHello):
        raise FrameError("the first frame must be hello")
    return hello


def encode(frame: dict[str, Any]) -> bytes:
    """A frame as one line of the byte stream (its text and a newline)."""
    return text_of(frame).encode() + b"\n"


def server_hello(workspace: str, *, read_only: bool, host: str) -> dict[str, Any]:
    """The server's ``hello``: the protocol and teamdeck it runs, and what it serves."""
    return {
        "frame": "hello",
        "protocol": PROTOCOL,
        "teamdeck": __version__,
        "host": host[:SHORT_CHARS],
        "workspace": workspace,
        "readOnly": read_only,
    }


def state_frame(seq: int, sections: dict[str, Any], *, full: bool) -> dict[str, Any]:
    """A ``state``: the snapshot's sections (``teamdeck status --json``'s keys); ``full``
    when it holds every one (the first), else only those that changed since ``seq - 1``."""
    return {"frame": "state", "seq": seq, "full": full, "state": sections}


def result_frame(
    request_id: str, *, ok: bool, text: str, repeated: bool = False, unknown: bool = False
) -> dict[str, Any]:
    """A ``result`` for request ``request_id``: ``ok`` and the line for the person
    (the action's, or its one-line refusal). ``repeated``: the request was taken
    before and this is its recorded result (nothing was done again); ``unknown``: it was
    taken before and its outcome was never recorded (check the workspace)."""
    return {"frame": "result", "id": request_id, "ok": ok, "text": text, "repeated": repeated, "unknown": unknown}


def protocol_problem(asked: int) -> str | None:
    """Why a client speaking protocol ``asked`` cannot be served (None: it can)."""
    if asked == PROTOCOL:
        return None
    return f"this teamdeck speaks protocol {PROTOCOL}, the client {asked}: upgrade the older of the two"


def answer_frame(query_id: str, *, ok: bool, data: Any = None, text: str = "") -> dict[str, Any]:
    """An ``answer`` to query ``query_id``: its ``data``, or why there is none (``text``)."""
    return {"frame": "answer", "id": query_id, "ok": ok, "data": data, "text": text}


def problem_frame(text: str) -> dict[str, Any]:
    """A ``problem``: a line that could not be taken, or a refresh that failed."""
    return {"frame": "problem", "text": text}
