"""live/actions.py without Textual: actions run one at a time in the order asked, a
failing one does not stop the next, and what each wrote is handed down to the live
workspace (a document replaced whole at once, the rest after the call) - never reported
before it is on disk (no optimistic update)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from support import small_worlds as worlds

from teamdeck.errors import Refused
from teamdeck.live.actions import Action, ActionRunner, Outcome
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.store.workspace import Workspace

DEADLINE_S = 20.0


class Told:
    """An :class:`OwnWrites` and a report in one: every call, in the order it came."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []
        self.on_wait: Callable[[], object] = lambda: None
        """What the front had on disk when it was waited for (see wait_shown)."""

    def wrote(self, paths: Iterable[Path]) -> int:
        self.calls.append(("wrote", frozenset(paths)))
        return len(self.calls)

    def wait_shown(self, ticket: int, timeout: float) -> None:
        self.calls.append(("wait", (ticket, self.on_wait())))

    def report(self, outcome: Outcome) -> None:
        self.calls.append(("report", outcome))

    @property
    def outcomes(self) -> list[Outcome]:
        return [call for kind, call in self.calls if kind == "report" and isinstance(call, Outcome)]


@pytest.fixture
def told() -> Told:
    return Told()


@pytest.fixture
def running(ws: Workspace, told: Told) -> Iterator[ActionRunner]:
    """A runner on a plain thread (as the app runs it on its action worker)."""
    runner = ActionRunner(ws, told, told.report)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    yield runner
    runner.stop()
    thread.join(timeout=DEADLINE_S)
    assert not thread.is_alive(), "stop() did not end the runner"


def wait_idle(runner: ActionRunner) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while runner.acting:
        assert time.monotonic() < deadline, "the actions did not finish"
        time.sleep(0.01)


def test_actions_run_one_at_a_time_in_the_order_asked(running: ActionRunner, told: Told) -> None:
    """The first asked sleeps longest: run side by side, the later ones would finish
    (and start) first; run in order, each starts after the one before has ended."""
    spans: list[tuple[int, float, float]] = []

    def sleeper(n: int, seconds: float) -> Action:
        def call(ws: Workspace) -> str:
            start = time.monotonic()
            time.sleep(seconds)
            spans.append((n, start, time.monotonic()))
            return f"slept {n}"

        return Action(f"sleep {n}", call)

    for n in range(5):
        running.submit(sleeper(n, 0.05 * (5 - n)))
    assert running.acting
    wait_idle(running)
    assert [n for n, _start, _end in spans] == [0, 1, 2, 3, 4]
    assert all(spans[i + 1][1] >= spans[i][2] for i in range(4)), "two actions overlapped"
    assert [outcome.text for outcome in told.outcomes] == [f"slept {n}" for n in range(5)]


def test_a_refused_or_broken_action_is_reported_and_the_next_ones_still_run(running: ActionRunner, told: Told) -> None:
    def refused(ws: Workspace) -> str:
        raise Refused("Could not do it: no such thing; nothing was changed")

    def broken(ws: Workspace) -> str:
        raise ValueError("a bug")

    running.submit(Action("do it", refused))
    running.submit(Action("break", broken))
    running.submit(Action("say hello", lambda ws: None))
    wait_idle(running)
    assert told.outcomes == [
        Outcome("do it", "Could not do it: no such thing; nothing was changed", failed=True),
        Outcome("break", "ValueError: a bug", failed=True),
        Outcome("say hello", "done: say hello"),
    ]


def test_what_an_action_appended_is_handed_down_after_its_outcome(
    ws: Workspace, running: ActionRunner, told: Told
) -> None:
    """A message sent: the inbox is replaced whole (handed down at once, while the call
    runs); the outcome comes next (a front's notice can then wait for the frame that
    draws the writes), then the rest the store's seam recorded (messages.jsonl,
    appended), without the inbox again."""
    worlds.team(ws)
    running.submit(Action("send", lambda ws: send_message(ws, "alpha", "alice", "hello", summary="hi") and "sent"))
    wait_idle(running)
    assert [kind for kind, _ in told.calls] == ["wrote", "wait", "report", "wrote"]
    assert told.calls[0][1] == frozenset({ws.inbox("alpha", "alice")})
    assert told.outcomes == [Outcome("send", "sent", wrote=True)]
    rest = told.calls[3][1]
    assert isinstance(rest, frozenset)
    assert ws.messages_log("alpha") in rest and ws.inbox("alpha", "alice") not in rest


def test_a_document_replaced_whole_is_handed_down_while_the_call_runs(
    ws: Workspace, running: ActionRunner, told: Told
) -> None:
    """task.yaml holds the decision as soon as it is replaced: it is handed down then (the
    queue shows the answer while the worker is still being told), and not again after
    the call, since nothing wrote it again meanwhile."""
    worlds.world(ws)
    task_yaml = ws.task_file("t1")
    running.submit(Action("approve", lambda ws: decide_gate(ws, "t1", "g-w1-1", "approve") and "approved"))
    wait_idle(running)
    kinds = [kind for kind, _ in told.calls]
    assert kinds.index("wrote") < kinds.index("report"), told.calls
    early = told.calls[0][1]
    assert early == frozenset({task_yaml})
    rest = [paths for kind, paths in told.calls[kinds.index("report") :] if kind == "wrote"]
    assert rest and all(isinstance(paths, frozenset) and task_yaml not in paths for paths in rest)
    assert any(ws.events_file("t1") in paths for paths in rest if isinstance(paths, frozenset))


def test_only_the_first_document_replaced_is_handed_down_while_the_call_runs(
    ws: Workspace, running: ActionRunner, told: Told
) -> None:
    """A decision replaces task.yaml, then the task's human-notes.md (and, in a team,
    the worker's inbox): its effects, handed down with the rest once the call returns,
    in one go, not each as it is replaced (every hand-down is a refresh and a redraw
    while the decision's own frame is being drawn)."""
    worlds.world(ws)
    running.submit(Action("approve", lambda ws: decide_gate(ws, "t1", "g-w1-1", "approve") and "approved"))
    wait_idle(running)
    kinds = [kind for kind, _ in told.calls]
    assert kinds == ["wrote", "wait", "report", "wrote"], told.calls
    assert told.calls[0][1] == frozenset({ws.task_file("t1")})
    rest = told.calls[3][1]
    assert isinstance(rest, frozenset)
    assert {ws.events_file("t1").parent / "shared" / "human-notes.md", ws.events_file("t1")} <= rest, rest


def test_a_decision_is_drawn_before_its_effects_are_written(ws: Workspace, running: ActionRunner, told: Told) -> None:
    """Once task.yaml holds the decision, the runner waits for the front to draw it
    before the call writes human-notes.md (its effects then take no CPU from that
    frame): at the wait, the notes do not hold the decision yet."""
    worlds.world(ws)
    notes = ws.events_file("t1").parent / "shared" / "human-notes.md"
    told.on_wait = lambda: notes.exists() and "approved" in notes.read_text()
    running.submit(Action("approve", lambda ws: decide_gate(ws, "t1", "g-w1-1", "approve") and "approved"))
    wait_idle(running)
    waits = [call for kind, call in told.calls if kind == "wait"]
    assert waits == [(1, False)], told.calls
    assert "approved" in notes.read_text()


def test_f4_a_refusal_after_a_partial_write_still_hands_down_what_was_written(
    ws: Workspace, running: ActionRunner, told: Told
) -> None:
    """(F4) An action that fails shows what is on disk: the part it did write is read."""
    worlds.team(ws)

    def half(ws: Workspace) -> str:
        send_message(ws, "alpha", "alice", "first half", summary="one")
        raise Refused("Could not send the second half: refused")

    running.submit(Action("send both", half))
    wait_idle(running)
    assert told.outcomes == [Outcome("send both", "Could not send the second half: refused", failed=True)]
    handed = [paths for kind, paths in told.calls if kind == "wrote"]
    assert handed and ws.inbox("alpha", "alice") in handed[0]  # type: ignore[operator]
