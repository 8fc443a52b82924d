"""The first snapshot read by a forked child (tui/first_read.py): the same snapshot the
app would read itself; a change made after the child looked is not lost; a child that
fails or hangs leaves the app to read the workspace itself."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from conftest import make_app, run

from teamdeck.protocol.messaging.sending import send_message
from teamdeck.store.workspace import Workspace
from teamdeck.tui.first_read import FirstRead
from teamdeck.view.build import build_snapshot, check_outputs


def _shown(snapshot):
    return (snapshot.teams, snapshot.tasks, snapshot.gates, snapshot.events, snapshot.problems)


def test_the_child_reads_what_the_app_would_read(world: Workspace) -> None:
    first = FirstRead.start(world)
    assert first is not None
    taken = first.take()
    assert taken is not None
    _record, snapshot = taken
    assert _shown(snapshot) == _shown(build_snapshot(world, check_outputs=False))
    # and, sent through the pipe, it still knows which outputs it has not checked yet
    assert _shown(check_outputs(snapshot)) == _shown(build_snapshot(world))


class _Answered:
    """A first read whose child has already answered (so the test decides what happens
    between the child's look at the files and the app's)."""

    def __init__(self, taken) -> None:
        self.taken = taken

    def take(self):
        return self.taken


def test_a_change_after_the_child_looked_is_shown(world: Workspace) -> None:
    """The child recorded and read the files before the app's watch was in place; an
    inbox written in between is read again when the app takes the child's snapshot."""
    first = FirstRead.start(world)
    assert first is not None
    taken = first.take()
    assert taken is not None and taken[1].member("alpha/alice").unread == 1
    send_message(world, "alpha", "alice", "written while the app was starting", summary="late")
    app = make_app(world, watch=True, first_read=_Answered(taken))

    async def scenario(pilot):
        assert app.snapshot.member("alpha/alice").unread == 2

    run(app, scenario)


def _hang() -> None:
    time.sleep(60)


def test_a_failing_child_leaves_the_read_to_the_app(world: Workspace) -> None:
    unpicklable = replace(world, clock=lambda: world.clock())  # the child cannot send a closure
    first = FirstRead.start(unpicklable)
    assert first is not None and first.take() is None


def test_a_hanging_child_is_stopped(world: Workspace) -> None:
    hanging = replace(world, clock=lambda: (_hang(), world.clock())[1])
    first = FirstRead.start(hanging)
    assert first is not None
    started = time.monotonic()
    assert first.take(timeout=0.5) is None
    assert time.monotonic() - started < 5


def test_no_fork_from_a_threaded_process(world: Workspace) -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert FirstRead.start(world) is None
    finally:
        stop.set()
        thread.join()
