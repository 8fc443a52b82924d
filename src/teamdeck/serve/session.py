"""One client served: the live workspace out as ``state`` frames, its requests in as
actions (docs/serve.md).

The session hosts what the TUI hosts (live/): a :class:`LiveWorkspace` watched and
refreshed on threads of its own, and an :class:`ActionRunner` that runs the requests one
at a time, the same actions the TUI's keys run (live/calls.py, via serve/requests.py).

Changes are coalesced, never queued: each new snapshot replaces the one waiting to be
sent, and one sender thread writes the newest when the client has taken the last, as
the sections that changed. A reader slower than the workspace gets fewer, newer states
and the server holds at most one snapshot for it.

A request is taken in the workspace before it runs and its outcome recorded after
(protocol/common/requests.py), so one sent again (after a dropped connection, to a new
server) is answered from the record and never applied twice.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable, Iterator
from typing import IO, TYPE_CHECKING, Any

from teamdeck.errors import TeamdeckError
from teamdeck.live.actions import Action, ActionRunner, Outcome
from teamdeck.live.workspace import LiveWorkspace
from teamdeck.protocol.common.requests import Earlier, earlier_request, record_outcome, take_request
from teamdeck.serve.requests import build_action
from teamdeck.shapes import stream
from teamdeck.shapes.snapshot import snapshot_json

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace
    from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

log = logging.getLogger(__name__)

OpenWorkspace = Callable[[str | None], "Workspace"]
"""Opens the workspace a client's hello names (None: the one the server was started
on), as the CLI opens one (its settings, read-only mode); raises a TeamdeckError with
the reason when it is not one."""

STATE_KEYS = ("overview", "tasks", "gates", "teams", "teamTasks", "problems", "readOnly", "takenAt", "workspace")
"""The sections of a state (``teamdeck status --json``'s keys): a change sends the ones
whose JSON differs from what the client has."""


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
        self._newest: WorkspaceSnapshot | None = None
        self._state_waiting = threading.Condition()
        self._closed = False
        self._sent: dict[str, Any] = {}
        self._seq = 0
        self._line_number = 0
        self._running: set[str] = set()
        """Requests of this session taken and not yet answered: one sent again meanwhile
        is answered once, when it ends."""
        self.live: LiveWorkspace | None = None
        self.runner: ActionRunner | None = None

    # --- the stream ----------------------------------------------------------------

    def run(self) -> int:
        """Serve until the client closes its side; returns the exit code (0, or 2 when
        the client's hello could not be taken)."""
        ws = self._handshake()
        if ws is None:
            return 2
        self.live = LiveWorkspace(
            ws, on_snapshot=self._snapshot, on_error=self._refresh_failed, on_join=self._join, watch=self._watch
        )
        self.runner = ActionRunner(ws, self.live, self._answered)
        threads = [
            threading.Thread(target=self.live.run_refresher, name="refresher", daemon=True),
            threading.Thread(target=self.runner.run, name="actions", daemon=True),
            threading.Thread(target=self._send_states, name="sender", daemon=True),
        ]
        if self._watch:
            threads.append(threading.Thread(target=self.live.run_watcher, name="watcher", daemon=True))
        for thread in threads:
            thread.start()
        try:
            for number, line in self._lines():
                self._take(number, line)
        finally:
            self.runner.stop()
            threads[1].join()  # the actions asked for finish and are answered before the end
            self.live.stop()
            with self._state_waiting:
                self._closed = True
                self._state_waiting.notify_all()
        return 0

    def _handshake(self) -> Workspace | None:
        """Take the client's hello, open its workspace and say ours; None (after a
        ``problem`` saying why) when either cannot be done."""
        first = next(self._lines(), None)
        if first is None:
            return None
        line = first[1]
        try:
            hello = stream.parse_client_line(line)
        except stream.FrameError as err:
            self._write(stream.problem_frame(f"line 1: {err}"))
            return None
        if not isinstance(hello, stream.ClientHello):
            self._write(stream.problem_frame("line 1: the first frame must be hello"))
            return None
        try:
            ws = self._open_workspace(hello.workspace)
        except TeamdeckError as err:
            self._write(stream.problem_frame(f"cannot serve {hello.workspace or 'the workspace'}: {err}"))
            return None
        self._write(stream.server_hello(str(ws.root), read_only=ws.read_only, host=socket.gethostname()))
        if hello.protocol != stream.PROTOCOL:
            self._write(
                stream.problem_frame(
                    f"this teamdeck speaks protocol {stream.PROTOCOL}, the client {hello.protocol}: "
                    "upgrade the older of the two"
                )
            )
            return None
        return ws

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

    def _take(self, number: int, line: bytes) -> None:
        """Line ``number`` after the hello: a request, run; anything else, a problem."""
        try:
            request = stream.parse_client_line(line)
        except stream.FrameError as err:
            self._write(stream.problem_frame(f"line {number}: {err}"))
            return
        if not isinstance(request, stream.Request):
            self._write(stream.problem_frame(f"line {number}: hello was said already"))
            return
        assert self.live is not None and self.runner is not None
        try:
            action = self._action_for(request)
        except TeamdeckError as err:
            self._write(stream.result_frame(request.id, ok=False, text=str(err)))
            return
        if action is not None:
            self.runner.submit(action)

    def _action_for(self, request: stream.Request) -> Action | None:
        """The action ``request`` asks for, once it is taken; None when it was taken
        before (its result, or that it is unknown, is sent now)."""
        assert self.live is not None
        if request.id in self._running:
            return None  # sent again while it runs: its result follows
        snapshot = self.live.newest
        if snapshot is None:
            raise TeamdeckError("the workspace is still being read; nothing was done (send it again)")
        earlier = earlier_request(self.live.ws, request.id, request.op, request.args)
        if earlier is None:
            action = build_action(request.op, request.args, snapshot)  # refused here: nothing is taken
            earlier = take_request(self.live.ws, request.id, request.op, request.args)
            if earlier is None:
                self._running.add(request.id)
                return Action(action.what, action.call, ref=request.id)
        self._write(self._from_record(request.id, earlier))
        return None

    @staticmethod
    def _from_record(request_id: str, earlier: Earlier) -> dict[str, Any]:
        """The result of a request taken before: its recorded outcome, or unknown."""
        if earlier.done:
            return stream.result_frame(request_id, ok=earlier.ok, text=earlier.text, repeated=True)
        return stream.result_frame(
            request_id,
            ok=False,
            unknown=True,
            text="this request was taken before and how it ended was never recorded: check",
        )

    def _answered(self, outcome: Outcome) -> None:
        """An action ended (on the action thread): record it, then say so."""
        assert self.live is not None
        if outcome.ref:
            try:
                record_outcome(self.live.ws, outcome.ref, ok=not outcome.failed, text=outcome.text)
            except TeamdeckError as err:
                log.warning("the outcome of request %s was not recorded: %s", outcome.ref, err)
            self._write(stream.result_frame(outcome.ref, ok=not outcome.failed, text=outcome.text))
            self._running.discard(outcome.ref)

    # --- states ----------------------------------------------------------------------

    def _snapshot(self, snapshot: WorkspaceSnapshot) -> None:
        """A new snapshot (on the refresher's thread): the newest waits to be sent,
        replacing any not sent yet."""
        with self._state_waiting:
            self._newest = snapshot
            self._state_waiting.notify_all()

    def _send_states(self) -> None:
        """Send the newest snapshot whenever there is one the client does not have:
        all of it first, then the sections that changed."""
        while True:
            with self._state_waiting:
                self._state_waiting.wait_for(lambda: self._newest is not None or self._closed)
                if self._newest is None:
                    return
                snapshot, self._newest = self._newest, None
            state = snapshot_json(snapshot)
            sections = {key: state[key] for key in STATE_KEYS if self._sent.get(key) != state[key]}
            if not sections:
                continue
            self._seq += 1
            self._write(stream.state_frame(self._seq, sections, full=self._seq == 1))
            self._sent.update(sections)

    def _refresh_failed(self, err: Exception) -> None:
        self._write(stream.problem_frame(f"could not refresh: {type(err).__name__}: {err}"))

    def _join(self, task_ids: list[str]) -> None:
        """Workers' final outputs appeared: join their tasks, as the TUI does."""
        from teamdeck.live import calls

        assert self.runner is not None
        for task_id in task_ids:
            self.runner.submit(calls.join(task_id))

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
