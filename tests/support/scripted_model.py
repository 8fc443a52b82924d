"""A scripted model on loopback: what the real Claude Code talks to in tests.

``ScriptedModel`` serves the part of Anthropic's Messages API that Claude Code uses
(``POST /v1/messages``, streaming or not, and ``/v1/messages/count_tokens``) on
127.0.0.1 at a free port. Each agent follows its own script, a list of turns; a turn is
a :class:`Reply` (text, or ``tool_use`` blocks) or a function of the request that makes
one (to read the tool list or a tool result the client just sent). Which agent a
request belongs to is decided by the script's ``when``: a text looked for in the
request's system prompt and first user message (a lead and a teammate have different
prompts), or a predicate over the :class:`Request`.

Which turn of its script an agent is at is the number of assistant messages in the
request (its conversation so far), not counting asides (:func:`aside`: a tool call
made while waiting for the world, e.g. loading a tool whose server was still
connecting): stateless, so a retried request gets the same answer and ``--resume``
continues the script where the session left it.

Requests with no tools (titles, summaries, quota checks: the client's side requests)
get a harmless text. Every request is recorded (:attr:`ScriptedModel.requests`), so a
test asks what an agent's model saw (:meth:`ScriptedModel.saw`). A script that raises,
or a request no script claims, is answered with an API error (Claude Code stops at
once instead of retrying) and raised again by :meth:`ScriptedModel.check` and on
leaving the ``with`` block, so a broken script fails the test that wrote it.

    with ScriptedModel() as model:
        model.script("lead", say("hello"), when="You are the team lead")
        run_claude(..., env=model.env())
        assert model.saw("lead", "hello")
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DUMMY_API_KEY = "sk-ant-test-000000000000000000000000000000000000-teamdeck"
"""The only key the client ever gets: it looks like a key, it opens nothing."""

HARMLESS = "OK."
"""What side requests (titles, summaries, quota checks) and finished scripts get."""

INPUT_TOKENS = 1000
"""The input tokens every answer reports (usage, and the cost the client derives)."""


@dataclass(frozen=True)
class Reply:
    """One assistant turn: its content blocks (``text`` / ``tool_use``) and why it stopped."""

    content: tuple[dict[str, Any], ...]
    stop_reason: str = "end_turn"
    counts: bool = True
    """False for an aside (see :func:`aside`): the script stays at the same step."""
    status: int = 200
    """An HTTP error status instead of the turn (see :func:`refuse`)."""
    error: dict[str, Any] | None = None
    """The API error body's ``error`` for such a status."""

    @property
    def output_tokens(self) -> int:
        return max(1, len(json.dumps(self.content)) // 4)


_ids = itertools.count(1)


def say(text: str) -> Reply:
    """A text answer that ends the turn (the session's result in ``claude -p``)."""
    return Reply(({"type": "text", "text": text},))


def call(name: str, arguments: dict[str, Any] | None = None, *, text: str | None = None) -> Reply:
    """A ``tool_use`` of ``name`` with ``arguments`` (after an optional text)."""
    return calls((name, arguments or {}), text=text)


def calls(*uses: tuple[str, dict[str, Any]], text: str | None = None) -> Reply:
    """Several ``tool_use`` blocks in one turn (the client runs them, then asks again)."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks += [
        {"type": "tool_use", "id": f"toolu_scripted_{next(_ids):06d}", "name": name, "input": arguments}
        for name, arguments in uses
    ]
    return Reply(tuple(blocks), stop_reason="tool_use")


def refuse(message: str, *, status: int = 400, kind: str = "invalid_request_error") -> Reply:
    """The API refuses the turn (``status`` with an error body): the client's model call
    fails as on a real API error. A 400 is not retried; the script stays at its step
    (no answer joins the conversation)."""
    return Reply((), status=status, error={"type": kind, "message": message})


def aside(reply: Reply) -> Reply:
    """``reply`` (a tool call) without moving the script on: the next request gets the
    same step again. For what a model does when the world is not ready yet, e.g. load
    a tool with ToolSearch when the server was still connecting."""
    if not any(block["type"] == "tool_use" for block in reply.content):
        raise ValueError("an aside must call a tool (its tool_use id is how it is recognised)")
    return replace(reply, counts=False)


def _text_of(content: Any) -> str:
    """The text in a message's (or a tool result's) content, blocks joined by newlines."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or ():
        if block.get("type") == "text":
            parts.append(block["text"])
        elif block.get("type") == "tool_result":
            parts.append(_text_of(block.get("content")))
        elif block.get("type") == "tool_use":
            parts.append(json.dumps(block.get("input"), ensure_ascii=False))
        elif block.get("type") == "tool_reference":
            parts.append(block["tool_name"])
    return "\n".join(parts)


@dataclass
class Request:
    """One request the client sent, as received (``body`` is the parsed JSON)."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    method: str = "POST"
    agent: str | None = None
    """The script that answered it; None for side requests and token counts."""
    kind: str = "turn"
    """``turn`` (an agent's model call), ``side`` (no tools: title, summary...),
    ``count_tokens``, or ``unknown``: an endpoint this model does not serve (answered
    404; a new client version that calls one shows up here, see :meth:`ScriptedModel.unknown`)."""

    @property
    def session_id(self) -> str | None:
        return self.headers.get("x-claude-code-session-id")

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    @property
    def system_text(self) -> str:
        """The system prompt, and the ``system``-role messages the client adds to ``messages``."""
        system = self.body.get("system") or []
        parts = [system] if isinstance(system, str) else [block.get("text", "") for block in system]
        parts += [_text_of(m["content"]) for m in self.messages if m.get("role") == "system"]
        return "\n".join(parts)

    @property
    def first_user_text(self) -> str:
        first = next((m for m in self.messages if m.get("role") == "user"), None)
        return _text_of(first["content"]) if first else ""

    @property
    def turn(self) -> int:
        """How many times the agent has answered in this conversation (asides included)."""
        return sum(1 for m in self.messages if m.get("role") == "assistant")

    @property
    def text(self) -> str:
        """Everything the model sees, flattened: system prompt, messages, tool results."""
        return "\n".join([self.system_text, *(_text_of(m["content"]) for m in self.messages)])

    @property
    def tool_names(self) -> list[str]:
        """The tools loaded from the start (the deferred ones are sent too, with
        ``defer_loading``: the model knows their schema once ToolSearch references them)."""
        return [tool["name"] for tool in self.body.get("tools") or [] if not tool.get("defer_loading")]

    @property
    def loaded_tools(self) -> list[str]:
        """The deferred tools ToolSearch loaded in this conversation (its results are
        ``tool_reference`` blocks naming them)."""
        return [
            ref["tool_name"]
            for m in self.messages
            if isinstance(m.get("content"), list)
            for block in m["content"]
            if block.get("type") == "tool_result" and isinstance(block.get("content"), list)
            for ref in block["content"]
            if ref.get("type") == "tool_reference"
        ]

    def tool(self, name: str) -> dict[str, Any]:
        """The definition (name, description, input_schema) the request carries for
        tool ``name``, deferred or not."""
        found = next((tool for tool in self.body.get("tools") or [] if tool["name"] == name), None)
        if found is None:
            raise KeyError(f"the request carries no tool {name!r}")
        return found

    @property
    def deferred_tools(self) -> list[str]:
        """The tools the client lists by name only (to be loaded with ToolSearch), from
        every such list in the request: MCP servers that finish connecting mid-session
        are announced in a later one."""
        names: list[str] = []
        for listing in self.system_text.split("Use ToolSearch with query")[1:]:
            for line in listing.split("\n")[1:]:
                if not line.strip() or " " in line.strip():
                    break
                if line.strip() not in names:
                    names.append(line.strip())
        return names

    def tool_results(self) -> dict[str, str]:
        """The tool results of the last user message: tool_use id → its text."""
        last = self.messages[-1] if self.messages else {}
        content = last.get("content") if last.get("role") == "user" else None
        if not isinstance(content, list):
            return {}
        return {b["tool_use_id"]: _text_of(b.get("content")) for b in content if b.get("type") == "tool_result"}

    def _blocks(self, role: str, kind: str) -> list[dict[str, Any]]:
        return [
            block
            for m in self.messages
            if m.get("role") == role and isinstance(m.get("content"), list)
            for block in m["content"]
            if block.get("type") == kind
        ]

    def tool_uses(self, name: str | None = None) -> list[dict[str, Any]]:
        """The ``tool_use`` blocks of the conversation (of tool ``name``), in order."""
        return [block for block in self._blocks("assistant", "tool_use") if name in (None, block["name"])]

    def results_of(self, name: str) -> list[dict[str, Any]]:
        """The ``tool_result`` blocks answering each call of tool ``name``, in order
        (``content`` is what the model read, ``is_error`` whether it was an error)."""
        results = {block["tool_use_id"]: block for block in self._blocks("user", "tool_result")}
        return [results[use["id"]] for use in self.tool_uses(name) if use["id"] in results]

    def result_of(self, name: str) -> str:
        """The text of the latest result of a call to tool ``name`` in the conversation."""
        found = self.results_of(name)
        if not found:
            raise KeyError(f"no result of {name} in the conversation")
        return _text_of(found[-1].get("content"))


Turn = Reply | Callable[[Request], Reply]


@dataclass
class Script:
    """An agent's turns, and which requests are its (``when``)."""

    agent: str
    turns: Sequence[Turn]
    when: Callable[[Request], bool]
    then: Reply = field(default_factory=lambda: say(HARMLESS))
    """What the agent says once its turns are used up."""
    asides: set[str] = field(default_factory=set)
    """The tool_use ids of the asides answered: their messages do not count as steps."""

    def step(self, request: Request) -> int:
        """Which of its turns the agent is at: its answers in the conversation, asides
        not counted (stateless: a retried request gets the same answer, ``--resume``
        continues the script)."""
        return sum(
            1
            for m in request.messages
            if m.get("role") == "assistant"
            and not any(isinstance(b, dict) and b.get("id") in self.asides for b in m.get("content") or ())
        )

    def answer(self, request: Request) -> Reply:
        step = self.step(request)
        if step >= len(self.turns):
            return self.then
        turn = self.turns[step]
        reply = turn(request) if callable(turn) else turn
        if not reply.counts:
            self.asides.update(block["id"] for block in reply.content if block["type"] == "tool_use")
        return reply


class ScriptError(AssertionError):
    """A request the scripts could not answer (no script claims it, or a script raised)."""


class ScriptedModel:
    """The loopback Messages API server; a context manager that starts and stops it."""

    def __init__(self) -> None:
        self._scripts: list[Script] = []
        self._requests: list[Request] = []
        self._errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- scripting -------------------------------------------------------------------

    def script(self, agent: str, *turns: Turn, when: str | Callable[[Request], bool] | None = None) -> Script:
        """Give ``agent`` its turns. ``when``: a text its system prompt or first user
        message contains, or a predicate; None claims every request (one agent)."""
        if when is None:
            test: Callable[[Request], bool] = lambda request: True  # noqa: E731
        elif isinstance(when, str):
            needle = when
            test = lambda request: needle in request.system_text or needle in request.first_user_text  # noqa: E731
        else:
            test = when
        script = Script(agent, turns, test)
        with self._lock:
            self._scripts.append(script)
        return script

    # --- what was asked -------------------------------------------------------------

    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._requests)

    def turns_of(self, agent: str) -> list[Request]:
        """The requests ``agent``'s script answered, in order."""
        return [r for r in self.requests if r.agent == agent]

    def saw(self, agent: str, text: str) -> bool:
        """Whether any request of ``agent`` carried ``text`` (anywhere the model reads)."""
        return any(text in r.text for r in self.turns_of(agent))

    def unknown(self) -> list[str]:
        """The endpoints the client called that this model does not serve (``GET /v1/…``)."""
        return [f"{r.method} {r.path}" for r in self.requests if r.kind == "unknown"]

    def wait_for(self, predicate: Callable[[Request], bool], timeout: float = 60.0) -> Request:
        """Block until a recorded request satisfies ``predicate``; that request."""
        with self._changed:
            found = self._changed.wait_for(
                lambda: next((r for r in self._requests if predicate(r)), None), timeout=timeout
            )
        if found is None:
            raise AssertionError(f"no such request within {timeout}s; {len(self.requests)} received")
        return found

    def check(self) -> None:
        """Raise the first error a script made (or a request no script claimed)."""
        with self._lock:
            if self._errors:
                raise ScriptError(f"{len(self._errors)} scripted answer(s) failed") from self._errors[0]

    # --- serving ----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        assert self._server is not None, "the model is not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def env(self) -> dict[str, str]:
        """What points Claude Code at this model, with the dummy key."""
        return {"ANTHROPIC_BASE_URL": self.base_url, "ANTHROPIC_API_KEY": DUMMY_API_KEY}

    def start(self) -> ScriptedModel:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-model", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.stop()
        if exc_type is None:
            self.check()

    def _receive(self, request: Request) -> tuple[int, dict[str, Any] | Reply]:
        """Record ``request`` and decide the answer: a reply, or (status, error body)."""
        path = request.path.split("?")[0]
        if request.method != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens"):
            request.kind = "unknown"
            outcome: tuple[int, dict[str, Any] | Reply] = (404, {"type": "error", "error": {"type": "not_found_error"}})
        elif path.endswith("/count_tokens"):
            request.kind = "count_tokens"
            outcome = (200, {"input_tokens": INPUT_TOKENS})
        elif not request.body.get("tools"):
            request.kind = "side"
            outcome = (200, say(HARMLESS))
        else:
            outcome = self._scripted(request)
        with self._changed:
            self._requests.append(request)
            self._changed.notify_all()
        return outcome

    def _scripted(self, request: Request) -> tuple[int, dict[str, Any] | Reply]:
        with self._lock:
            scripts = list(self._scripts)
        try:
            script = next((s for s in scripts if s.when(request)), None)
            if script is None:
                raise ScriptError(f"no script claims this request; it begins: {request.first_user_text[:300]!r}")
            request.agent = script.agent
            reply = script.answer(request)
            if reply.error is not None:
                return reply.status, {"type": "error", "error": reply.error}
            return 200, reply
        except Exception as err:  # noqa: BLE001 - any script failure is reported to the test, and to the client
            with self._lock:
                self._errors.append(err)
            return 400, {
                "type": "error",
                "error": {"type": "invalid_request_error", "message": f"scripted model: {err}"},
            }


def _events(reply: Reply, model: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The server-sent events of a streamed answer, as the Messages API sends them."""
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": f"msg_scripted_{next(_ids):06d}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": 1},
            },
        },
    )
    for index, block in enumerate(reply.content):
        if block["type"] == "text":
            yield "content_block_start", _block_start(index, {"type": "text", "text": ""})
            for chunk in _chunks(block["text"]):
                yield "content_block_delta", _delta(index, {"type": "text_delta", "text": chunk})
        else:
            yield "content_block_start", _block_start(index, {**block, "input": {}})
            for chunk in _chunks(json.dumps(block["input"])):
                yield "content_block_delta", _delta(index, {"type": "input_json_delta", "partial_json": chunk})
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
            "usage": {"output_tokens": reply.output_tokens},
        },
    )
    yield "message_stop", {"type": "message_stop"}


def _block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _chunks(text: str, size: int = 40) -> list[str]:
    """Split as a real stream does (a client must join the deltas)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _message(reply: Reply, model: str) -> dict[str, Any]:
    """A non-streamed answer."""
    return {
        "id": f"msg_scripted_{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(reply.content),
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": reply.output_tokens},
    }


def _handler_for(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"unparsed": raw.decode(errors="replace")}
            headers = {name.lower(): value for name, value in self.headers.items()}
            status, answer = model._receive(Request(self.path, headers, body, method="POST"))
            if isinstance(answer, dict):
                self._send(status, "application/json", json.dumps(answer).encode())
            elif body.get("stream"):
                stream = "".join(
                    f"event: {name}\ndata: {json.dumps(data)}\n\n"
                    for name, data in _events(answer, body.get("model", ""))
                )
                self._send(200, "text/event-stream", stream.encode())
            else:
                self._send(200, "application/json", json.dumps(_message(answer, body.get("model", ""))).encode())

        def do_GET(self) -> None:
            headers = {name.lower(): value for name, value in self.headers.items()}
            status, answer = model._receive(Request(self.path, headers, {}, method="GET"))
            self._send(status, "application/json", json.dumps(answer).encode())

        def _send(self, status: int, content_type: str, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(payload)))
            if status >= 400:
                self.send_header("x-should-retry", "false")
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the recorded requests are the log."""

    return Handler
