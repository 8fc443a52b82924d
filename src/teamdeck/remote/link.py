"""A workspace on another host, read through ``teamdeck serve --stdio`` over the user's
own ``ssh`` (a local workspace the same way, through a child process).

A :class:`Link` keeps one host's newest state (the stream's sections, merged) and says
how the link is: ``connecting``, ``live``, ``unreachable`` (since when, and why in one
line: ssh's own words) or ``incompatible`` (the other side speaks another protocol).
A link that drops is tried again with a growing pause; its last state stays, marked
as old by the status.

Actions are requests with an id (:meth:`Link.ask`). One whose answer has not come when
the link drops is sent again, with the same id, once the link is back: the server
recognises the id (protocol/common/requests.py) and answers from its record, so it is
applied at most once. An answer that never comes within the wait is ``unknown``: the
person checks; nothing is retried behind their back after that.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from teamdeck.clock import utc_now
from teamdeck.ids import new_ulid
from teamdeck.model.hosts import Host
from teamdeck.shapes import stream
from teamdeck.text import one_line

LinkStatus = Literal["connecting", "live", "unreachable", "incompatible"]

RETRY_FIRST_S = 0.5
RETRY_MAX_S = 5.0
"""A dropped link is tried again after 0.5 s, then twice as long each time, up to this
(a host back from a reboot is shown within seconds, at a cost of one ssh a few seconds)."""
HELLO_TIMEOUT_S = 30.0
"""The longest a new link waits for the host's hello: ssh's ConnectTimeout (10 s) covers
the connection and the key exchange, not a remote command that never answers."""
ASK_TIMEOUT_S = 30.0
"""How long an action waits for its answer before it is unknown."""
STDERR_LINES = 20
"""The last lines of ssh's own messages kept, for the reason a link is down."""


@dataclass(frozen=True)
class Reply:
    """How an action asked of a host went.

    Attributes:
        ok: it was done.
        text: the line for the person: the action's, its refusal, or why it is unknown.
        unknown: no answer came: whether it was done is not known (check the host).
        repeated: the host had done it before (the request was sent again); nothing
            was done twice.
    """

    ok: bool
    text: str
    unknown: bool = False
    repeated: bool = False


@dataclass(frozen=True)
class Answer:
    """What a host answered a query with.

    Attributes:
        ok: there is an answer (``data``); else ``text`` says why not.
        data: the answer (docs/serve.md says its shape per query).
        text: why there is none (the host's words, or that none came).
    """

    ok: bool
    data: Any = None
    text: str = ""


class _Asked:
    """A request or a query waiting for its reply (the frame that answers it)."""

    def __init__(self, frame: dict[str, Any]) -> None:
        self.frame = frame
        self.reply: dict[str, Any] | None = None
        self.done = threading.Event()


class Link:
    """One host's workspace, kept live (see the module).

    Args:
        host: which host, and how to reach it.
        on_change: called (from the link's thread) after each new state or status.
        argv: the command that starts the stream (default: the host's ssh command, or
            this teamdeck's ``serve --stdio`` for a workspace on this machine).
    """

    def __init__(
        self, host: Host, *, on_change: Callable[[Link], None] | None = None, argv: list[str] | None = None
    ) -> None:
        self.host = host
        self.argv = argv or (host.ssh_argv() if host.ssh else [sys.executable, "-m", "teamdeck", "serve", "--stdio"])
        self._on_change = on_change or (lambda link: None)
        self.state: dict[str, Any] = {}
        """The newest state: ``teamdeck status --json``'s sections as the host sent them."""
        self.server: dict[str, Any] = {}
        """The host's hello (its teamdeck, protocol and workspace)."""
        self.status: LinkStatus = "connecting"
        self.since: datetime = utc_now()
        self.why = ""
        self.problems: deque[str] = deque(maxlen=20)
        """The host's last ``problem`` frames (lines it could not take, refreshes that failed)."""
        self._asked: dict[str, _Asked] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._first_state = threading.Event()
        self._live_count = 0
        self._problem_count = 0
        self._hello_seen: subprocess.Popen[bytes] | None = None
        """The process of the attempt whose hello came."""
        """How many times the link went live (a connection that ends before it did was refused)."""
        self._thread: threading.Thread | None = None

    # --- running -------------------------------------------------------------------

    def start(self) -> Link:
        """Connect on a thread of its own, and again whenever the link drops, until :meth:`stop`."""
        self._thread = threading.Thread(target=self._keep_up, name=f"link-{self.host.name}", daemon=True)
        self._thread.start()
        return self

    def wait_first(self, timeout: float) -> bool:
        """Wait until a first state came or the link failed; whether a state came."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._first_state.wait(0.05):
                return True
            if self.status in ("unreachable", "incompatible"):
                return False
        return self._first_state.is_set()

    def stop(self) -> None:
        """Close the link (the remote server ends with its input)."""
        self._stop.set()
        process = self._process
        if process is not None:
            _end(process)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _keep_up(self) -> None:
        pause = RETRY_FIRST_S
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self._connect_and_read()
            except Exception as err:  # noqa: BLE001 - a bug in one attempt must not end the link for good
                self._set_status("unreachable", f"{type(err).__name__}: {err}")
            if self._stop.is_set() or self.status == "incompatible":
                return
            if time.monotonic() - started > RETRY_MAX_S:
                pause = RETRY_FIRST_S  # it was up for a while: try again soon
            self._stop.wait(pause)
            pause = min(pause * 2, RETRY_MAX_S)

    def _connect_and_read(self) -> None:
        stderr: deque[str] = deque(maxlen=STDERR_LINES)
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # a Ctrl+C at the terminal is the front's, not ssh's
            )
        except OSError as err:
            self._set_status("unreachable", f"cannot start {self.argv[0]}: {err.strerror or err}")
            return
        self._process = process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        problems_before, live_before = self._problem_count, self._live_count
        hello_due = threading.Timer(HELLO_TIMEOUT_S, self._no_hello, args=(process,))
        hello_due.daemon = True
        hello_due.start()
        collector = threading.Thread(target=_collect, args=(process.stderr, stderr), daemon=True)
        collector.start()
        try:
            hello = {
                "frame": "hello",
                "protocol": stream.PROTOCOL,
                "client": "teamdeck",
                "workspace": self.host.workspace,
            }
            process.stdin.write(stream.encode(hello))
            process.stdin.flush()
            for line in _lines(process.stdout):
                self._take(line, process)
        except (BrokenPipeError, ConnectionError, ValueError):
            pass
        finally:
            hello_due.cancel()
            _end(process)
            self._process = None
        if self._stop.is_set() or self.status == "incompatible":
            return
        collector.join(timeout=2)  # ssh's last words come after its stdout closed
        said = [line for line in stderr if line.strip()]
        why = one_line(said[-1], 200) if said else f"the stream ended (exit {process.returncode})"
        if self._live_count == live_before and self._problem_count > problems_before:
            why = self.problems[-1]  # refused before any state: the server said why
        self._set_status("unreachable", why)

    def _take(self, line: bytes | int, process: subprocess.Popen[bytes]) -> None:
        if isinstance(line, int):
            self.problems.append(
                f"the host sent a line of {line:,} bytes, over the limit of {stream.MAX_SERVER_LINE_BYTES:,}; dropped"
            )
            self._problem_count += 1
            self._on_change(self)
            return
        try:
            frame = json.loads(line)
        except ValueError:
            self.problems.append(f"the host sent a line that is not JSON ({len(line)} bytes)")
            return
        if not isinstance(frame, dict):
            return
        kind = frame.get("frame")
        if kind == "hello":
            self.server = frame
            self._hello_seen = process
            if frame.get("protocol") != stream.PROTOCOL:
                self._set_status(
                    "incompatible",
                    f"teamdeck {one_line(str(frame.get('teamdeck')), 40)} there speaks protocol "
                    f"{one_line(str(frame.get('protocol')), 10)}, this one {stream.PROTOCOL}: upgrade the older",
                )
                _end(process)
            return
        if kind == "state" and isinstance(frame.get("state"), dict):
            with self._lock:
                if frame.get("full"):
                    self.state = {}
                self.state.update(frame["state"])
            self._first_state.set()
            if self.status == "live":
                self._on_change(self)
                return
            self._live_count += 1
            self._set_status("live", "")
            self._resend_unanswered()
        elif kind in ("result", "answer"):
            self._answered(frame)
        elif kind == "problem":
            self.problems.append(one_line(str(frame.get("text")), 300))
            self._problem_count += 1
            self._on_change(self)

    def _no_hello(self, process: subprocess.Popen[bytes]) -> None:
        """The host said nothing within :data:`HELLO_TIMEOUT_S`: end this attempt (the
        next one follows after the pause)."""
        if self._hello_seen is not process and process.poll() is None:
            self.problems.append(f"no hello from the host within {HELLO_TIMEOUT_S:.0f} s")
            self._problem_count += 1
            process.kill()

    def _set_status(self, status: LinkStatus, why: str) -> None:
        if status != self.status or why != self.why:
            self.status, self.why, self.since = status, why, utc_now()
            self._on_change(self)

    # --- actions -------------------------------------------------------------------

    def ask(self, op: str, args: dict[str, Any], *, by: str | None = None, timeout: float = ASK_TIMEOUT_S) -> Reply:
        """Ask the host for action ``op`` and wait for its answer (see the module);
        ``by``: the person it is done for, recorded by the host as the actor.

        A read-only host is asked nothing."""
        if self.host.read_only:
            return Reply(ok=False, text=f"{self.host.name} is read-only here; nothing was sent")
        request = {"frame": "request", "id": new_ulid(utc_now()), "op": op, "args": args}
        if by is not None:
            request["by"] = by
        frame = self._wait(request, timeout)
        if frame is None:
            return Reply(
                ok=False,
                unknown=True,
                text=f"unknown: check {self.host.name}: no answer within {timeout:.0f} s ({self._state_line()})",
            )
        return Reply(
            ok=bool(frame.get("ok")),
            text=str(frame.get("text") or ""),
            unknown=bool(frame.get("unknown")),
            repeated=bool(frame.get("repeated")),
        )

    def query(self, what: str, args: dict[str, Any], *, timeout: float = ASK_TIMEOUT_S) -> Answer:
        """Ask the host ``what`` (a query: it changes nothing) and wait for the answer."""
        frame = self._wait({"frame": "query", "id": new_ulid(utc_now()), "what": what, "args": args}, timeout)
        if frame is None:
            return Answer(
                ok=False, text=f"{self.host.name} gave no answer within {timeout:.0f} s ({self._state_line()})"
            )
        return Answer(ok=bool(frame.get("ok")), data=frame.get("data"), text=str(frame.get("text") or ""))

    def _wait(self, frame: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """Send ``frame`` (again, same id, whenever the link comes back before its reply)
        and wait for the frame that answers it; None when none came in ``timeout``."""
        asked = _Asked(frame)
        with self._lock:
            self._asked[frame["id"]] = asked
        self._send(asked)
        if not asked.done.wait(timeout):
            with self._lock:
                self._asked.pop(frame["id"], None)
            return None
        return asked.reply

    def _send(self, asked: _Asked) -> None:
        process = self._process
        if process is None or process.stdin is None or self.status != "live":
            return  # sent when the link is back
        try:
            with self._write_lock:
                process.stdin.write(stream.encode(asked.frame))
                process.stdin.flush()
        except (BrokenPipeError, ConnectionError, ValueError):
            pass  # the link is dropping: sent again, same id, when it is back

    def _resend_unanswered(self) -> None:
        with self._lock:
            waiting = list(self._asked.values())
        for asked in waiting:
            self._send(asked)

    def _answered(self, frame: dict[str, Any]) -> None:
        with self._lock:
            asked = self._asked.pop(str(frame.get("id")), None)
        if asked is None:
            return
        asked.reply = frame
        asked.done.set()

    def _state_line(self) -> str:
        return f"link {self.status}" + (f": {self.why}" if self.why else "")


def _lines(output: Any) -> Iterator[bytes | int]:
    """The server's lines, each at most :data:`~teamdeck.shapes.stream.MAX_SERVER_LINE_BYTES`;
    for one longer, read to its end and dropped, its size (never held whole)."""
    limit = stream.MAX_SERVER_LINE_BYTES
    while line := output.readline(limit + 1):
        if len(line) <= limit or line.endswith(b"\n"):
            yield line
            continue
        size = len(line)
        while line and not line.endswith(b"\n"):
            line = output.readline(limit + 1)
            size += len(line)
        yield size


def _collect(stream: Any, into: deque[str]) -> None:
    for raw in stream:
        into.append(raw.decode(errors="replace").rstrip("\n"))


def _end(process: subprocess.Popen[bytes]) -> None:
    """Close our side and make sure the process is gone."""
    try:
        if process.stdin is not None:
            process.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass
    try:
        process.wait(timeout=2)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
