"""The first snapshot read by a forked child (tui/first_read.py): the same snapshot the
app would read itself; a change made after the child looked is not lost; a child that
fails or hangs leaves the app to read the workspace itself."""

from __future__ import annotations

import gc
import threading
import time

from support.pilot_helpers import make_app, run, until

from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.store.workspace import Workspace
from teamdeck.tui.first_read import FirstRead
from teamdeck.view.refresh.build import build_snapshot, check_outputs, with_state


def _shown(snapshot):
    return (snapshot.teams, snapshot.tasks, snapshot.decisions, snapshot.events, snapshot.problems)


def test_the_child_reads_what_the_app_would_read(world: Workspace) -> None:
    first = FirstRead.start(world)
    assert first is not None
    taken = first.take()
    assert taken is not None
    _record, snapshot = taken
    assert _shown(snapshot) == _shown(build_snapshot(world, check_outputs=False))
    # the refresher state comes second, made of the objects of the first part
    assert snapshot.state is None
    state = first.state()
    assert state is not None and state.team_views["alpha"] is snapshot.team("alpha")
    # and, sent through the pipe, it still knows which outputs it has not checked yet
    assert _shown(check_outputs(with_state(snapshot, state))) == _shown(build_snapshot(world))


def test_the_app_draws_the_first_part_and_refreshes_with_the_second(world: Workspace) -> None:
    """The first screen is drawn from the child's first part (no refresher state); the
    state comes after it, and the next change is refreshed from it."""
    first = FirstRead.start(world)
    assert first is not None
    app = make_app(world, watch=False, first_read=first)

    async def scenario(pilot):
        assert _shown(app.snapshot) == _shown(build_snapshot(world))  # the outputs checked from the state
        send_message(world, "alpha", "alice", "after the start", summary="later")
        app.paths_changed([world.inbox("alpha", "alice")])
        await until(pilot, lambda: app.settled and app.snapshot.member("alpha/alice").unread == 2)
        assert app.snapshot.state is not None

    run(app, scenario)


def test_collection_comes_back_on_once_the_first_frame_and_the_state_are_in(world: Workspace) -> None:
    """Start-up runs with garbage collection off (open_app turns it off before the fork);
    once the first snapshot is drawn and the refresher holds the child's state, what
    start-up allocated is frozen and collection is back on (else every later full pass
    would walk the whole read model)."""
    gc.disable()
    frozen = gc.get_freeze_count()
    first = FirstRead.start(world)
    assert first is not None
    app = make_app(world, watch=False, first_read=first)

    async def scenario(pilot):
        await until(pilot, gc.isenabled, "collection back on")
        assert gc.get_freeze_count() > frozen

    try:
        run(app, scenario)
    finally:
        gc.enable()


class _Answered:
    """A first read whose child has already answered (so the test decides what happens
    between the child's look at the files and the app's)."""

    def __init__(self, taken, state=None) -> None:
        self.taken = taken
        self._state = state

    def take(self):
        return self.taken

    def state(self):
        return self._state


def test_a_change_after_the_child_looked_is_shown(world: Workspace) -> None:
    """The child recorded and read the files before the app's watch was in place; an
    inbox written in between is read again when the app takes the child's snapshot."""
    first = FirstRead.start(world)
    assert first is not None
    taken = first.take()
    assert taken is not None and taken[1].member("alpha/alice").unread == 1
    state = first.state()
    send_message(world, "alpha", "alice", "written while the app was starting", summary="late")
    app = make_app(world, watch=True, first_read=_Answered(taken, state))

    async def scenario(pilot):
        assert app.snapshot.member("alpha/alice").unread == 2

    run(app, scenario)


def _hang() -> None:
    time.sleep(60)


def _broken_clock():
    raise RuntimeError("no clock")


def test_a_failing_child_leaves_the_read_to_the_app(world: Workspace) -> None:
    first = FirstRead.start(world._replace(clock=_broken_clock))  # the child's read raises
    assert first is not None and first.take() is None
    assert first.state() is None


def test_a_child_failing_after_the_first_part_leaves_the_rest_to_the_app(world: Workspace) -> None:
    """The child sends what the first screen draws, then cannot send its refresher
    state (the workspace it holds has a clock that cannot be pickled): the app draws
    the first part, then reads the workspace itself, and its live view goes on (F-series:
    nothing shown is lost, later changes are read)."""
    unpicklable = world._replace(clock=lambda: world.clock())
    first = FirstRead.start(unpicklable)
    assert first is not None
    app = make_app(world, watch=False, first_read=first)

    async def scenario(pilot):
        assert app.snapshot.state is not None  # read here once the second part failed
        assert _shown(app.snapshot) == _shown(build_snapshot(world))
        send_message(world, "alpha", "alice", "after the start", summary="later")
        app.paths_changed([world.inbox("alpha", "alice")])
        await until(pilot, lambda: app.settled and app.snapshot.member("alpha/alice").unread == 2)

    run(app, scenario)


def test_a_hanging_child_is_stopped(world: Workspace) -> None:
    hanging = world._replace(clock=lambda: (_hang(), world.clock())[1])
    first = FirstRead.start(hanging)
    assert first is not None
    started = time.monotonic()
    assert first.take(timeout=0.5) is None
    assert time.monotonic() - started < 5


def test_no_record_no_read_elsewhere(world: Workspace, monkeypatch) -> None:
    """The app records the files' state while the child imports; if it cannot, the child
    is told nothing, exits without reading, and the app reads the workspace itself."""
    import teamdeck.view.refresh.file_record as file_record_module

    def failing(ws):
        raise OSError("no stat today")

    monkeypatch.setattr(file_record_module, "file_record", failing)
    assert FirstRead.start(world) is None  # (and the child was waited for: no zombie left)


def test_no_fork_from_a_threaded_process(world: Workspace) -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert FirstRead.start(world) is None
    finally:
        stop.set()
        thread.join()
