"""live/workspace.py without Textual, on plain threads: the first snapshot, changes
merged into one refresh, a failed refresh reported and survived, the echo of the
front's own write dropped (read once, not twice) while someone else's write to the
same file is read, and the auto-join rule."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support import small_worlds as worlds

from teamdeck.live import workspace as live_module
from teamdeck.live.actions import Action, ActionRunner
from teamdeck.live.workspace import LiveWorkspace
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import unchecked_outputs
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

DEADLINE_S = 20.0


def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


class Front:
    """What a front is told: snapshots, errors, tasks to join."""

    def __init__(self) -> None:
        self.snapshots: list[WorkspaceSnapshot] = []
        self.errors: list[Exception] = []
        self.joins: list[list[str]] = []


@pytest.fixture
def world(ws: Workspace) -> Workspace:
    worlds.world(ws)
    return ws


@pytest.fixture
def refreshed(monkeypatch: pytest.MonkeyPatch) -> list[frozenset[Path]]:
    """Every batch of paths the refresher read (view.refresh, wrapped)."""
    batches: list[frozenset[Path]] = []
    real = live_module.refresh

    def recording(snapshot: WorkspaceSnapshot, paths: set[Path]) -> WorkspaceSnapshot:
        batches.append(frozenset(paths))
        return real(snapshot, paths)

    monkeypatch.setattr(live_module, "refresh", recording)
    return batches


def start(ws: Workspace, front: Front, *, watch: bool, shows: bool = False) -> tuple[LiveWorkspace, Callable[[], None]]:
    """A live workspace with its threads running and its first snapshot read; returns it
    with the function that stops it."""
    live = LiveWorkspace(
        ws,
        on_snapshot=front.snapshots.append,
        on_error=front.errors.append,
        on_join=front.joins.append,
        watch=watch,
        force_polling=False,
        shows=shows,
    )
    threads = [threading.Thread(target=live.run_refresher, daemon=True)]
    if watch:
        threads.append(threading.Thread(target=live.run_watcher, daemon=True))
    for thread in threads:
        thread.start()
    until(lambda: bool(front.snapshots) and live.settled and (live.watching or not watch), "the first snapshot")

    def stop() -> None:
        live.stop()
        for thread in threads:
            thread.join(timeout=DEADLINE_S)
        assert not any(thread.is_alive() for thread in threads), "stop() did not end the threads"

    return live, stop


@pytest.fixture
def front() -> Front:
    return Front()


@pytest.fixture
def watched(world: Workspace, front: Front) -> Iterator[LiveWorkspace]:
    live, stop = start(world, front, watch=True)
    yield live
    stop()


@pytest.fixture
def unwatched(world: Workspace, front: Front) -> Iterator[LiveWorkspace]:
    live, stop = start(world, front, watch=False)
    yield live
    stop()


def test_the_first_snapshot_is_handed_to_the_front_then_the_one_with_the_outputs(
    unwatched: LiveWorkspace, front: Front
) -> None:
    """The first snapshot comes without the workers' outputs checked (the first frame
    does not show them); the next one checks them."""
    assert front.snapshots[0].decision("task:t1:g-w1-1") is not None
    assert front.snapshots[-1] is unwatched.newest
    assert unchecked_outputs(front.snapshots[0]) and not unchecked_outputs(unwatched.newest)


def test_changes_that_queue_during_a_refresh_are_read_in_one_refresh(
    unwatched: LiveWorkspace, front: Front, monkeypatch: pytest.MonkeyPatch, world: Workspace
) -> None:
    """Only the newest state matters: three batches queued behind a slow refresh are
    merged into the next one."""
    release = threading.Event()
    batches: list[frozenset[Path]] = []
    real = live_module.refresh

    def slow(snapshot: WorkspaceSnapshot, paths: set[Path]) -> WorkspaceSnapshot:
        batches.append(frozenset(paths))
        release.wait(DEADLINE_S)
        return real(snapshot, paths)

    monkeypatch.setattr(live_module, "refresh", slow)
    first, *others = [world.inbox("alpha", name) for name in ("team-lead", "alice", "bob")]
    unwatched.paths_changed([first])
    until(lambda: len(batches) == 1, "the first refresh to start")
    for path in others:
        unwatched.paths_changed([path])
    unwatched.paths_changed([first])
    release.set()
    until(lambda: unwatched.settled, "the refreshes")
    assert batches == [frozenset({first}), frozenset({first, *others})]


def test_a_refresh_that_raises_is_reported_and_the_next_change_is_read(
    unwatched: LiveWorkspace, front: Front, monkeypatch: pytest.MonkeyPatch, world: Workspace
) -> None:
    real = live_module.refresh
    calls: list[int] = []

    def failing_once(snapshot: WorkspaceSnapshot, paths: set[Path]) -> WorkspaceSnapshot:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("disk gone")
        return real(snapshot, paths)

    monkeypatch.setattr(live_module, "refresh", failing_once)
    unwatched.paths_changed([world.inbox("alpha", "alice")])
    until(lambda: bool(front.errors), "the error")
    assert isinstance(front.errors[0], OSError)
    send_message(world, "alpha", "alice", "second", summary="second")
    unwatched.paths_changed([world.inbox("alpha", "alice")])
    until(lambda: len(calls) == 2 and unwatched.settled, "the second refresh")
    assert front.snapshots[-1] is unwatched.newest and len(front.snapshots) >= 2


def test_the_echo_of_an_own_write_is_dropped_and_a_foreign_write_is_read(
    watched: LiveWorkspace, world: Workspace, refreshed: list[frozenset[Path]]
) -> None:
    """An action's write is read once, when the runner hands it down; the watcher's
    report of the same write is dropped. Someone else's write to the same file after
    it is read (an echo is dropped once, and only with the stamp it was written with)."""
    alice = world.inbox("alpha", "alice")
    lead = world.inbox("alpha", "team-lead")
    runner = ActionRunner(world, watched, lambda outcome: None)
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    try:
        runner.submit(Action("send", lambda ws: send_message(ws, "alpha", "alice", "mine", summary="mine") and "sent"))
        until(lambda: not runner.acting, "the action")
        # A foreign write to another file, after the action's: once it is read, the
        # watcher has reported the action's write too (in order, or in the same batch).
        send_message(world, "alpha", "team-lead", "someone else's", summary="theirs", sender="alice")
        until(lambda: any(lead in batch for batch in refreshed) and watched.settled, "the foreign write")
        assert sum(alice in batch for batch in refreshed) == 1, refreshed
        # Someone else writes alice's inbox: read again.
        send_message(world, "alpha", "alice", "theirs", summary="theirs", sender="bob")
        until(lambda: sum(alice in batch for batch in refreshed) == 2 and watched.settled, "the second write")
    finally:
        runner.stop()
        thread.join(timeout=DEADLINE_S)


def test_an_echo_is_dropped_once_and_only_with_its_stamp(world: Workspace, front: Front) -> None:
    live = LiveWorkspace(
        world, on_snapshot=front.snapshots.append, on_error=front.errors.append, on_join=front.joins.append
    )
    alice, bob = world.inbox("alpha", "alice"), world.inbox("alpha", "bob")
    live.wrote([alice])
    assert live.drop_echoes(frozenset({alice, bob})) == {bob}
    assert live.drop_echoes(frozenset({alice})) == {alice}  # the echo came once
    live.wrote([alice])
    send_message(world, "alpha", "alice", "written again by someone", summary="again", sender="bob")
    assert live.drop_echoes(frozenset({alice})) == {alice}  # not the write it was told of


def test_an_unwatched_workspace_keeps_no_echoes(world: Workspace, front: Front) -> None:
    """Without a watcher nothing reports the write again: nothing is kept to drop."""
    live = LiveWorkspace(
        world, on_snapshot=front.snapshots.append, on_error=front.errors.append, on_join=front.joins.append, watch=False
    )
    alice = world.inbox("alpha", "alice")
    live.wrote([alice])
    assert live.drop_echoes(frozenset({alice})) == {alice}


def test_a_new_final_output_asks_the_front_to_join_its_task(
    watched: LiveWorkspace, front: Front, world: Workspace
) -> None:
    write_final_output(world, "t1", "w5", {"status": "blocked", "summary": "need input", "questions": ["Which?"]})
    until(lambda: bool(front.joins), "the join")
    assert front.joins == [["t1"]]


@pytest.mark.parametrize(
    ("settings", "read_only"), [("autoJoin: false\n", False), ("readOnly: true\n", False), ("", True)]
)
def test_no_join_when_auto_join_is_off_or_writes_are_off(
    world: Workspace, front: Front, settings: str, read_only: bool
) -> None:
    if settings:
        (world.root / ".teamdeck.yaml").write_text(settings)
    live, stop = start(world.with_read_only(read_only), front, watch=False)
    try:
        live.final_outputs({"t1"})
        assert front.joins == []
    finally:
        stop()
    (world.root / ".teamdeck.yaml").unlink(missing_ok=True)
    live, stop = start(world, front, watch=False)
    try:
        live.final_outputs({"t2", "t1"})
        assert front.joins == [["t1", "t2"]]  # the control: with the defaults it joins, in order
    finally:
        stop()


def test_nothing_is_joined_before_the_first_snapshot(world: Workspace, front: Front) -> None:
    live = LiveWorkspace(
        world, on_snapshot=front.snapshots.append, on_error=front.errors.append, on_join=front.joins.append
    )
    live.final_outputs({"t1"})
    assert front.joins == []


def _waits(live: LiveWorkspace, ticket: int) -> threading.Thread:
    """``live.wait_shown(ticket)`` on a thread of its own (as the action thread waits)."""
    waiting = threading.Thread(target=live.wait_shown, args=(ticket, DEADLINE_S), daemon=True)
    waiting.start()
    return waiting


def test_an_action_waits_until_the_front_has_drawn_what_it_wrote(world: Workspace) -> None:
    """The action thread waits for the front to say it drew the snapshot that holds its
    write (the decision, before its effects are written), and no longer."""
    front = Front()
    live, stop = start(world, front, watch=False, shows=True)
    try:
        live.shown(front.snapshots[-1])
        count = len(front.snapshots)
        world.task_file("t1").write_text(
            world.task_file("t1").read_text().replace("state: blocked", "state: working", 1)
        )
        waiting = _waits(live, live.wrote({world.task_file("t1")}))
        until(lambda: len(front.snapshots) > count, "the snapshot of the write")
        time.sleep(0.2)
        assert waiting.is_alive(), "it returned before the front drew the snapshot"
        live.shown(front.snapshots[-1])
        waiting.join(DEADLINE_S)
        assert not waiting.is_alive()
        # A write that changes nothing drawn is on screen as soon as the newest snapshot is.
        count = len(front.snapshots)
        (world.root / "notes.txt").write_text("not a file teamdeck shows")
        waiting = _waits(live, live.wrote({world.root / "notes.txt"}))
        waiting.join(DEADLINE_S)
        assert not waiting.is_alive() and len(front.snapshots) == count
    finally:
        stop()


def test_a_front_that_does_not_say_what_it_drew_is_not_waited_for(world: Workspace) -> None:
    front = Front()
    live, stop = start(world, front, watch=False)
    try:
        began = time.monotonic()
        live.wait_shown(live.wrote({world.task_file("t1")}), DEADLINE_S)
        assert time.monotonic() - began < DEADLINE_S / 2
    finally:
        stop()
