"""One client served over a pair of byte streams (``teamdeck serve --stdio``: what
another machine's teamdeck starts over SSH): its hello taken, its workspace served from
a :class:`~teamdeck.serve.hub.Hub` of its own, its lines read as requests.

A sender thread writes the newest state whenever the client has taken the last one
(the hub coalesces: a reader slower than the workspace gets fewer, newer states).
Every line that is not a frame the client may send is answered with one ``problem``
naming the line; the stream goes on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, Any

from teamdeck.errors import TeamdeckError
from teamdeck.serve.hub import Hub, Subscriber, greeting
from teamdeck.shapes import stream

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace

OpenWorkspace = Callable[[str | None], "Workspace"]
"""Opens the workspace a client's hello names (None: the one the server was started
on), as the CLI opens one (its settings, read-only mode); raises a TeamdeckError with
the reason when it is not one."""


class Session:
    """Serve one client over ``reader`` (its lines) and ``writer`` (ours), until the
    client closes its side.

    Args:
        open_workspace: see :data:`OpenWorkspace`.
        reader: the client's frames, one per line (binary).
        writer: where the frames go (binary); flushed after each.
        watch: watch the files (off: tests that push changes by hand).
    """

    def __init__(
        self, open_workspace: OpenWorkspace, reader: IO[bytes], writer: IO[bytes], *, watch: bool = True
    ) -> None:
        self._open_workspace = open_workspace
        self._reader = reader
        self._writer = writer
        self._watch = watch
        self._write_lock = threading.Lock()
        self._woken = threading.Event()
        self._closed = threading.Event()
        self._line_number = 0
        self.hub: Hub | None = None

    def run(self) -> int:
        """Serve until the client closes its side; returns the exit code (0, or 2 when
        the client's hello could not be taken)."""
        ws = self._handshake()
        if ws is None:
            return 2
        hub = self.hub = Hub(ws, watch=self._watch).start()
        subscriber = hub.subscribe(self._write, self._woken.set)
        sender = threading.Thread(target=self._send_states, args=(subscriber,), name="sender", daemon=True)
        sender.start()
        try:
            for number, line in self._lines():
                hub.take_frame(subscriber, line, f"line {number}")
        finally:
            hub.stop()  # the actions asked for finish and are answered before the end
            self._closed.set()
            self._woken.set()
            sender.join()
        return 0

    def _handshake(self) -> Workspace | None:
        """Take the client's hello, open its workspace and say ours; None (after a
        ``problem`` saying why) when either cannot be done."""
        first = next(self._lines(), None)
        if first is None:
            return None
        number, line = first
        try:
            hello = stream.parse_hello(line)
        except stream.FrameError as err:
            self._write(stream.problem_frame(f"line {number}: {err}"))
            return None
        try:
            ws = self._open_workspace(hello.workspace)
        except TeamdeckError as err:
            self._write(stream.problem_frame(f"cannot serve {hello.workspace or 'the workspace'}: {err}"))
            return None
        answer = greeting(ws, hello)
        for frame in answer:
            self._write(frame)
        return ws if len(answer) == 1 else None

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        """The client's lines with their numbers (blank ones skipped); a line over the
        limit is skipped to its end and answered with a problem, never held whole."""
        while True:
            line = self._reader.readline(stream.MAX_LINE_BYTES + 1)
            if not line:
                return
            self._line_number += 1
            number = self._line_number
            if len(line) > stream.MAX_LINE_BYTES and not line.endswith(b"\n"):
                while line and not line.endswith(b"\n"):
                    line = self._reader.readline(stream.MAX_LINE_BYTES + 1)
                self._write(stream.problem_frame(f"line {number}: over the limit of {stream.MAX_LINE_BYTES:,} bytes"))
                continue
            if line.strip():
                yield number, line

    def _send_states(self, subscriber: Subscriber) -> None:
        """Send the newest state whenever there is one the client does not have."""
        while True:
            self._woken.wait()
            self._woken.clear()
            if self._closed.is_set():
                return
            frame = subscriber.next_state()
            if frame is not None:
                self._write(frame)

    def _write(self, frame: dict[str, Any]) -> None:
        """Write one frame whole (frames from several threads never interleave). A
        client that went away ends nothing here: the reader sees its end."""
        data = stream.encode(frame)
        with self._write_lock:
            try:
                self._writer.write(data)
                self._writer.flush()
            except (BrokenPipeError, ConnectionError, ValueError):
                pass
