"""One live workspace served to any number of clients (docs/serve.md).

The hub hosts what the TUI hosts (live/): a :class:`LiveWorkspace` watched and refreshed
on threads of its own, and an :class:`ActionRunner` that runs every client's requests
one at a time, the same actions the TUI's keys run (live/calls.py, via
serve/requests.py). Each client is a :class:`Subscriber`: the stdio session has one,
the WebSocket listener one per connection.

Changes are coalesced, never queued. A new snapshot only wakes the subscribers; each
takes :meth:`Subscriber.next_state` when it can send, and gets the sections of the
newest state that differ from what it has. The newest state is worked out once per
snapshot, whoever asks first, and shared: a reader slower than the workspace gets
fewer, newer states, and the hub holds one state for all of them.

A request is taken in the workspace before it runs and its outcome recorded after
(protocol/common/requests.py), so one sent again (after a dropped connection, to a new
server) is answered from the record and never applied twice.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teamdeck.errors import TeamdeckError
from teamdeck.live import calls
from teamdeck.live.actions import Action, ActionRunner, Outcome
from teamdeck.live.workspace import LiveWorkspace
from teamdeck.protocol.common.requests import Earlier, earlier_request, record_outcome, take_request
from teamdeck.serve.queries import answer_query
from teamdeck.serve.requests import build_action
from teamdeck.shapes import stream
from teamdeck.shapes.snapshot import snapshot_json

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace
    from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

log = logging.getLogger(__name__)

Send = Callable[[dict[str, Any]], None]
"""Sends one frame to a client (safe from any thread)."""

STATE_KEYS = ("overview", "tasks", "gates", "teams", "teamTasks", "problems", "readOnly", "takenAt", "workspace")
"""The sections of a state (``teamdeck status --json``'s keys): a change sends the ones
whose JSON differs from what the client has."""


class Subscriber:
    """One client of a hub: what it was sent, and how to reach it.

    Args:
        hub: the hub it reads.
        send: sends a frame to it (results, problems).
        wake: called (from the refresher's thread) when a newer state is there to take.
    """

    def __init__(self, hub: Hub, send: Send, wake: Callable[[], None]) -> None:
        self._hub = hub
        self.send = send
        self.wake = wake
        self._sent: dict[str, Any] = {}
        self._seq = 0

    def next_state(self) -> dict[str, Any] | None:
        """The ``state`` frame this client does not have yet (all sections the first
        time, then those that changed), or None when it has the newest."""
        state = self._hub.newest_state()
        if state is None:
            return None
        sections = {key: state[key] for key in STATE_KEYS if _differs(self._sent.get(key, _NOTHING), state[key])}
        if not sections:
            return None
        self._seq += 1
        self._sent.update(sections)
        return stream.state_frame(self._seq, sections, full=self._seq == 1)


class Hub:
    """One workspace, live, for every subscriber (see the module).

    Args:
        ws: the workspace.
        watch: watch the files (off: tests that push changes by hand).
    """

    def __init__(self, ws: Workspace, *, watch: bool = True) -> None:
        self.ws = ws
        self._watch = watch
        self.live = LiveWorkspace(
            ws, on_snapshot=self._snapshot, on_error=self._refresh_failed, on_join=self._join, watch=watch
        )
        self.runner = ActionRunner(ws, self.live, self._answered)
        self._lock = threading.Lock()
        self._subscribers: list[Subscriber] = []
        self._state: tuple[WorkspaceSnapshot, dict[str, Any]] | None = None
        """The newest snapshot as state sections, worked out once for all subscribers."""
        self._asked: dict[str, Subscriber] = {}
        """Requests taken and not yet answered, with who asked: one sent again meanwhile
        is answered once, when it ends."""
        self._threads: list[threading.Thread] = []
        self._actions: threading.Thread | None = None

    # --- running -------------------------------------------------------------------

    def start(self) -> Hub:
        """Start reading the workspace and running actions, on threads of its own."""
        self._actions = threading.Thread(target=self.runner.run, name="actions", daemon=True)
        self._threads = [threading.Thread(target=self.live.run_refresher, name="refresher", daemon=True), self._actions]
        if self._watch:
            self._threads.append(threading.Thread(target=self.live.run_watcher, name="watcher", daemon=True))
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        """Finish the actions asked for (their results are sent), then stop reading."""
        self.runner.stop()
        if self._actions is not None:
            self._actions.join()
        self.live.stop()

    def subscribe(self, send: Send, wake: Callable[[], None]) -> Subscriber:
        """A new client; woken at once if a state is there to take."""
        subscriber = Subscriber(self, send, wake)
        with self._lock:
            self._subscribers.append(subscriber)
        if self.live.newest is not None:
            wake()
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        with self._lock:
            if subscriber in self._subscribers:
                self._subscribers.remove(subscriber)
            for request_id in [key for key, asker in self._asked.items() if asker is subscriber]:
                self._asked.pop(request_id)  # still run and recorded; nobody to tell

    def newest_state(self) -> dict[str, Any] | None:
        """The newest snapshot as state sections (None before the first is read)."""
        snapshot = self.live.newest
        if snapshot is None:
            return None
        cached = self._state
        if cached is not None and cached[0] is snapshot:
            return cached[1]
        state = snapshot_json(snapshot)
        with self._lock:
            if self._state is None or self._state[0] is not self.live.newest:
                self._state = (snapshot, state)
        return state

    # --- requests ------------------------------------------------------------------

    def take_frame(self, subscriber: Subscriber, data: bytes, where: str) -> None:
        """One frame from ``subscriber`` after its hello (``where``: ``line 3``,
        ``message 3``, for the problem): a request, run; anything else, one problem."""
        try:
            request = stream.parse_client_line(data)
        except stream.FrameError as err:
            subscriber.send(stream.problem_frame(f"{where}: {err}"))
            return
        if isinstance(request, stream.Query):
            subscriber.send(self.answer(request))
            return
        if not isinstance(request, stream.Request):
            subscriber.send(stream.problem_frame(f"{where}: hello was said already"))
            return
        self.take(subscriber, request)

    def answer(self, query: stream.Query) -> dict[str, Any]:
        """The ``answer`` frame to ``query``, from the newest snapshot."""
        snapshot = self.live.newest
        if snapshot is None:
            return stream.answer_frame(query.id, ok=False, text="the workspace is still being read; ask again")
        try:
            data = answer_query(query.what, query.args, snapshot, self.ws)
        except TeamdeckError as err:
            return stream.answer_frame(query.id, ok=False, text=str(err))
        return stream.answer_frame(query.id, ok=True, data=data)

    def take(self, subscriber: Subscriber, request: stream.Request) -> None:
        """Run ``request`` for ``subscriber``: its ``result`` is sent to it now (refused,
        or answered from the record of an earlier time) or when its action ends."""
        try:
            action = self._action_for(subscriber, request)
        except TeamdeckError as err:
            subscriber.send(stream.result_frame(request.id, ok=False, text=str(err)))
            return
        if action is not None:
            self.runner.submit(action)

    def _action_for(self, subscriber: Subscriber, request: stream.Request) -> Action | None:
        with self._lock:
            if request.id in self._asked:
                return None  # sent again while it runs: its result follows
        snapshot = self.live.newest
        if snapshot is None:
            raise TeamdeckError("the workspace is still being read; nothing was done (send it again)")
        earlier = earlier_request(self.ws, request.id, request.op, request.args)
        if earlier is None:
            action = build_action(request.op, request.args, snapshot)  # refused here: nothing is taken
            earlier = take_request(self.ws, request.id, request.op, request.args)
            if earlier is None:
                with self._lock:
                    self._asked[request.id] = subscriber
                return Action(action.what, action.call, ref=request.id, actor=request.by or "")
        subscriber.send(_from_record(request.id, earlier))
        return None

    def _answered(self, outcome: Outcome) -> None:
        """An action ended (on the action thread): record it, then tell who asked."""
        if not outcome.ref:
            return
        try:
            record_outcome(self.ws, outcome.ref, ok=not outcome.failed, text=outcome.text)
        except TeamdeckError as err:
            log.warning("the outcome of request %s was not recorded: %s", outcome.ref, err)
        with self._lock:
            asker = self._asked.pop(outcome.ref, None)
        if asker is not None:
            asker.send(stream.result_frame(outcome.ref, ok=not outcome.failed, text=outcome.text))

    # --- from the live workspace -------------------------------------------------------

    def _snapshot(self, snapshot: WorkspaceSnapshot) -> None:
        with self._lock:
            waiting = list(self._subscribers)
        for subscriber in waiting:
            subscriber.wake()

    def _refresh_failed(self, err: Exception) -> None:
        with self._lock:
            waiting = list(self._subscribers)
        for subscriber in waiting:
            subscriber.send(stream.problem_frame(f"could not refresh: {type(err).__name__}: {err}"))

    def _join(self, task_ids: list[str]) -> None:
        """Workers' final outputs appeared: join their tasks, as the TUI does."""
        for task_id in task_ids:
            self.runner.submit(calls.join(task_id))


def greeting(ws: Workspace, hello: stream.ClientHello) -> list[dict[str, Any]]:
    """What a client's ``hello`` is answered with: the server's hello (always, so the
    client can say what the server speaks), then a problem when the session cannot go
    on: another protocol, or another workspace than the one served."""
    frames = [stream.server_hello(str(ws.root), read_only=ws.read_only, host=socket.gethostname())]
    if hello.workspace is not None and Path(hello.workspace).resolve() != ws.root:
        frames.append(stream.problem_frame(f"this server serves {ws.root}, not {hello.workspace}"))
    problem = stream.protocol_problem(hello.protocol)
    if problem is not None:
        frames.append(stream.problem_frame(problem))
    return frames


_NOTHING = object()


def _differs(sent: Any, newest: Any) -> bool:
    """Whether a section changed: the same object (the shared state, unchanged) is
    known equal without comparing it."""
    return sent is not newest and sent != newest


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
