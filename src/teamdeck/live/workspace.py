"""A workspace kept live: watched, refreshed, and told of the front's own writes.

Data flows one way: the watcher collects batches of changed paths; one refresher at a
time turns them into the next snapshot (view.refresh) and hands it to the front
(``on_snapshot``), which draws it. The front's actions (live/actions.py) tell it what
they wrote (:meth:`LiveWorkspace.wrote`): those paths are read at once, and the
watcher's report of the same write is dropped (its echo: read and drawn once, not
twice). A worker's ``final.json`` appearing asks the front to join its task (the
auto-join rule, :meth:`LiveWorkspace.final_outputs`).

Nothing here knows Textual: the front runs :meth:`~LiveWorkspace.run_watcher` and
:meth:`~LiveWorkspace.run_refresher` on threads of its own (the TUI: its workers) and
is called back from them; tests run them on plain threads.
"""

from __future__ import annotations

import gc
import queue
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from teamdeck.protocol.common.written import stamps
from teamdeck.view.refresh.file_record import changed_between, file_record
from teamdeck.watch import watch_batches

if TYPE_CHECKING:
    from teamdeck.store.files import Stamp
    from teamdeck.store.workspace import Workspace
    from teamdeck.view.refresh.build import (
        build_snapshot,
        check_outputs,
        load_older,
        refresh,
        retime,
        unchecked_outputs,
        with_state,
    )
    from teamdeck.view.refresh.file_record import FileRecord
    from teamdeck.view.refresh.read_state import ReadState
    from teamdeck.view.snapshot.workspace import WorkspaceSnapshot
else:

    def _from_build(name: str) -> Callable[..., Any]:
        """view/refresh/build.py's ``name``, imported at its first call: the readers and all they
        read with (the models, YAML, pydantic) are a third of the TUI's start, and its
        first frame needs none of them when the first snapshot was read elsewhere."""

        def call(*args: Any, **kwargs: Any) -> Any:
            from teamdeck.view.refresh import build

            return getattr(build, name)(*args, **kwargs)

        call.__name__ = name
        return call

    build_snapshot = _from_build("build_snapshot")
    check_outputs = _from_build("check_outputs")
    load_older = _from_build("load_older")
    refresh = _from_build("refresh")
    retime = _from_build("retime")
    unchecked_outputs = _from_build("unchecked_outputs")
    with_state = _from_build("with_state")

WATCH_SETUP_S = 2.0
"""The longest the first read waits for the watcher to be in place."""
FIRST_FRAME_WAIT_S = 2.0
"""The longest the refresher waits for the front to draw a first snapshot read elsewhere
before it takes the rest of that read (the two would share the CPU)."""
OUTPUTS_PER_REFRESH = 100
"""Tasks whose workers' outputs are checked in one go after the first frame: at 1,000
tasks (5,800 outputs) checking them all took seconds, during which no change of the
workspace was shown and quitting waited (the process exits once the refresher does)."""
_STOP = "stop"
_OLDER = "older"
_CLOCK = "clock"
_OUTPUTS = "outputs"


class ReadElsewhere(Protocol):
    """A first snapshot being read elsewhere (tui/first_read.py: a forked child)."""

    def take(self) -> tuple[FileRecord, WorkspaceSnapshot] | None:
        """The file record taken before the read, and the snapshot without its
        refresher state (``state`` None); None if it failed."""

    def state(self) -> ReadState | None:
        """The refresher state of the snapshot :meth:`take` returned (called after it);
        None if that failed."""


class LiveWorkspace:
    """One workspace, watched and refreshed for one front (see the module).

    Args:
        ws: the workspace (with its clock and read-only flag).
        on_snapshot: called with each new snapshot, from the refresher's thread.
        on_error: called with what a refresh raised, from the refresher's thread (the
            refresher goes on with the next change).
        on_join: called with the ids of the tasks to join again, sorted, from the
            watcher's thread: a worker's final.json appeared or changed, the workspace
            did not turn autoJoin off and writes are on.
        watch: watch the files (off: only :meth:`paths_changed` and the front's own
            writes refresh the view; snapshots and most tests).
        force_polling: poll instead of inotify (None: decide from the filesystem).
        first_read: a first snapshot being read elsewhere meanwhile (None: read it here).
        shows: the front says when it has drawn a snapshot (:meth:`shown`), so that an
            action can wait for its decision to be drawn (:meth:`wait_shown`).
    """

    def __init__(
        self,
        ws: Workspace,
        *,
        on_snapshot: Callable[[WorkspaceSnapshot], None],
        on_error: Callable[[Exception], None],
        on_join: Callable[[list[str]], None],
        watch: bool = True,
        force_polling: bool | None = None,
        first_read: ReadElsewhere | None = None,
        shows: bool = False,
    ) -> None:
        self.ws = ws
        self.shows = shows
        self.watch_files = watch
        self.force_polling = force_polling
        self._first_read = first_read
        self._on_snapshot = on_snapshot
        self._on_error = on_error
        self._on_join = on_join
        self.newest: WorkspaceSnapshot | None = None
        """The newest snapshot handed to the front (None until the first is read)."""
        self._changes: queue.SimpleQueue[tuple[int, frozenset[Path] | str]] = queue.SimpleQueue()
        self._tickets = 0
        """Changes queued so far: each change's ticket is its number."""
        self._unread = 0
        """Changes queued and not yet read (a change taken off the queue is unread until
        the refresh that reads it has handed its snapshot on)."""
        self._unread_lock = threading.Lock()
        self._busy = threading.Event()
        self._stop = threading.Event()
        self._watching = threading.Event()
        """Set once the watch is in place (a change after it is seen)."""
        self._echoes: dict[Path, Stamp | None] = {}
        """Files the front's own actions wrote and had read, with their stamps then."""
        self._echo_lock = threading.Lock()
        self._drawn = threading.Condition()
        self._newest_upto = 0
        """The last ticket read into :attr:`newest`."""
        self._shown_upto = 0
        """The last ticket read into a snapshot the front has drawn (or into none)."""
        self._first_drawn = threading.Event()
        """The front drew the first snapshot (:meth:`first_drawn`)."""
        self._first_read_done = False
        """The refresher holds the first snapshot with its state (or gave up reading it)."""
        self._started_lock = threading.Lock()
        self._started = False
        """What start-up allocated is frozen and garbage collection is back on."""

    # --- state -----------------------------------------------------------------------

    @property
    def settled(self) -> bool:
        """No change is waiting to be read and no refresh is running (tests wait on it)."""
        return self._unread == 0 and not self._busy.is_set()

    @property
    def watching(self) -> bool:
        """The watcher is in place: every change from now on reaches the view."""
        return self._watching.is_set()

    @property
    def stopped(self) -> bool:
        """:meth:`stop` was called: the watcher and the refresher are ending."""
        return self._stop.is_set()

    @property
    def read_only(self) -> bool:
        """Writes are off: the workspace's flag, or the newest snapshot's settings."""
        return self.ws.read_only or (self.newest is not None and self.newest.read_only)

    def stop(self) -> None:
        """End the watcher and the refresher (each returns soon after)."""
        self._stop.set()
        self._changes.put((0, _STOP))
        with self._drawn:
            self._drawn.notify_all()

    # --- what to read ------------------------------------------------------------------

    def paths_changed(self, paths: Iterable[Path]) -> None:
        """Note that ``paths`` changed; the refresher reads them soon (merged with any
        other change that arrives meanwhile). Safe from any thread."""
        batch = frozenset(paths)
        if batch:
            self._queue(batch)

    def load_older(self) -> None:
        """Read older lines of every event log into the view."""
        self._queue(_OLDER)

    def recheck_clock(self) -> None:
        """Look at the clock again: a shutdown request may have become overdue by time
        passing alone (the front calls it every few seconds; tests that move time)."""
        self._queue(_CLOCK)

    def _queue(self, change: frozenset[Path] | str) -> int:
        with self._unread_lock:
            self._unread += 1
            self._tickets += 1
            ticket = self._tickets
            self._changes.put((ticket, change))
        return ticket

    def wrote(self, paths: Iterable[Path]) -> int:
        """The front's own action wrote ``paths`` (live/actions.py's :class:`OwnWrites`):
        read them now, and remember the stamp of each file and of the directory it is
        in (a file replaced there changes the directory too), so that the watcher's
        report of the same write is not read and drawn again. Safe from any thread.

        Returns:
            The change's ticket, for :meth:`wait_shown`.
        """
        written = set(paths)
        if not written:
            return 0
        if self.watch_files:
            with self._echo_lock:
                self._echoes.update(stamps(written | {path.parent for path in written}))
        return self._queue(frozenset(written))

    def wait_shown(self, ticket: int, timeout: float) -> None:
        """Return once the change ``ticket`` is on screen: read into a snapshot the front
        has drawn, or into none (nothing to draw); at most ``timeout`` seconds, and at
        once when the front does not say what it drew. The action thread waits here
        so that what it writes next does not compete with that frame for the CPU."""
        if not self.shows:
            return
        with self._drawn:
            self._drawn.wait_for(lambda: self.is_shown(ticket) or self.stopped, timeout)

    def is_shown(self, ticket: int) -> bool:
        """Whether the change ``ticket`` is on screen (see :meth:`wait_shown`)."""
        return self._shown_upto >= ticket

    def shown(self, snapshot: WorkspaceSnapshot) -> None:
        """The front has drawn ``snapshot`` (from any thread)."""
        with self._drawn:
            if snapshot is self.newest:
                self._shown_upto = max(self._shown_upto, self._newest_upto)
                self._drawn.notify_all()

    def _nothing_to_show(self, upto: int) -> None:
        """The changes up to ``upto`` were read into no new snapshot: they are on
        screen once the newest one is."""
        with self._drawn:
            if self._newest_upto <= self._shown_upto:
                self._shown_upto = max(self._shown_upto, upto)
                self._drawn.notify_all()
            self._newest_upto = max(self._newest_upto, upto)

    def drop_echoes(self, batch: frozenset[Path]) -> frozenset[Path]:
        """``batch`` (from the watcher) without the front's own writes already read; a
        path whose stamp changed since was written again by someone else: kept. Each
        echo is dropped once."""
        with self._echo_lock:
            if not self._echoes:
                return batch
            mine = {path for path in batch if path in self._echoes}
            if not mine:
                return batch
            now = stamps(mine)
            echoes = {path for path in mine if now[path] == self._echoes.pop(path)}
        return batch - echoes

    # --- the threads -------------------------------------------------------------------

    def run_watcher(self) -> None:
        """Watch until :meth:`stop`: hand each batch of changed paths (echoes dropped)
        straight to the refresher, and the tasks whose final.json it holds to
        ``on_join`` (the auto-join rule). Blocks; run it on a thread."""
        from teamdeck.protocol.task.worker_outputs import tasks_with_final_output  # JSON Schema: only here, off the UI

        try:
            for batch in watch_batches(
                self.ws.root, self._stop, force_polling=self.force_polling, ready=self._watching
            ):
                if self._stop.is_set():
                    return
                batch = self.drop_echoes(batch)
                if not batch:
                    continue
                self._queue(batch)
                self.final_outputs(tasks_with_final_output(self.ws, batch))
        finally:
            self._watching.set()  # a watcher that failed must not keep the first read waiting

    def final_outputs(self, task_ids: set[str]) -> None:
        """Workers of ``task_ids`` wrote their final.json: ask the front to join those
        tasks, unless the workspace turned autoJoin off or writes are off (the rule is
        read from the newest snapshot; before the first, nothing is joined)."""
        snapshot = self.newest
        if not task_ids or snapshot is None or not snapshot.auto_join or self.read_only:
            return
        self._on_join(sorted(task_ids))

    def first_drawn(self) -> None:
        """The front drew the first snapshot (call once, from any thread): the refresher
        goes on with what it put off until then (see :meth:`run_refresher`)."""
        self._first_drawn.set()
        self._end_start_up()

    def run_refresher(self) -> None:
        """Read the first snapshot, then refresh it from every batch of changes until
        :meth:`stop`: one thread, so one refresh at a time; batches that queued up
        meanwhile are merged into one refresh (only the newest state matters). Blocks;
        run it on a thread.

        Garbage collection is off from the first read until the front drew it and the
        refresher holds its state (:meth:`_end_start_up`)."""
        self._busy.set()
        gc.disable()  # the first read allocates most of what the front holds: no collections meanwhile
        try:
            snapshot = self._first_snapshot()
            self._queue(_OUTPUTS)  # the workers' outputs, right after the first frame (which does not show them)
        finally:
            self._busy.clear()
            self._first_read_done = True
            self._end_start_up()
        while True:
            upto, item = self._changes.get()
            self._busy.set()
            taken = 0
            try:
                paths: set[Path] = set()
                older = clock = outputs = False
                while True:
                    if item == _STOP:
                        return
                    taken += 1
                    if item == _OLDER:
                        older = True
                    elif item == _CLOCK:
                        clock = True
                    elif item == _OUTPUTS:
                        outputs = True
                    elif not isinstance(item, str):
                        paths |= item
                    try:
                        upto, item = self._changes.get_nowait()
                    except queue.Empty:
                        break
                before = snapshot
                try:
                    if outputs:
                        snapshot = check_outputs(snapshot, OUTPUTS_PER_REFRESH)
                        if unchecked_outputs(snapshot):
                            self._queue(_OUTPUTS)  # the rest after the changes queued meanwhile
                    if paths:
                        snapshot = refresh(snapshot, paths)
                    if older:
                        snapshot = load_older(snapshot)
                    if clock:
                        snapshot = retime(snapshot)
                except Exception as err:  # noqa: BLE001 - a bad refresh must not end live updates
                    self._on_error(err)
                    self._nothing_to_show(upto)
                    continue
                if snapshot is not before:
                    self._publish(snapshot, upto)
                else:
                    self._nothing_to_show(upto)
            finally:
                with self._unread_lock:
                    self._unread -= taken
                self._busy.clear()

    def _first_snapshot(self) -> WorkspaceSnapshot:
        """Read the first snapshot (without the workers' outputs), hand it to the front,
        and return it.

        Read here: once the watch is in place, so that a change made between the read
        and the watch cannot be missed. Read elsewhere (tui/first_read.py): handed to
        the front as soon as it comes, before the watch is in place and without its
        refresher state, which only refreshes need; after the front's first frame
        (which they would slow down, holding the GIL; at most
        :data:`FIRST_FRAME_WAIT_S`) the state is taken, the readers are imported with
        it (view/refresh/build.py and all it reads with: a third of a start), and once the
        watch is in place every file that changed since the child's record is read
        again: whatever changes later, the watch reports."""
        first_read, self._first_read = self._first_read, None
        taken = first_read.take() if first_read is not None else None
        if first_read is None or taken is None:
            self._wait_for_watch()
            return self._read_here()
        record, snapshot = taken
        self._publish(snapshot)
        self._first_drawn.wait(FIRST_FRAME_WAIT_S)
        state = first_read.state()
        self._wait_for_watch()
        if state is None:
            return self._read_here()  # the rest was lost: read it all again
        snapshot = with_state(snapshot, state)
        changed = changed_between(record, file_record(self.ws))
        if not changed:
            return snapshot
        refreshed = refresh(snapshot, changed)
        if refreshed is not snapshot:
            self._publish(refreshed)
        return refreshed

    def _wait_for_watch(self) -> None:
        """Wait until the watch is in place (bounded: a watcher that cannot start does
        not keep the screen empty)."""
        if self.watch_files:
            self._watching.wait(WATCH_SETUP_S)

    def _read_here(self) -> WorkspaceSnapshot:
        """The first snapshot read in this process, handed to the front."""
        snapshot = build_snapshot(self.ws, check_outputs=False, record=True)
        self._publish(snapshot)
        return snapshot

    def _end_start_up(self) -> None:
        """Once the front drew the first snapshot and the refresher holds its state:
        everything alive then (the widget tree, the first snapshot and its state) lives
        as long as the front, so keep it out of every future garbage collection, whose
        full passes would walk it all and stall the UI (355 ms per pass at 1M live
        objects), and turn collection back on. At once if the first read failed."""
        with self._started_lock:
            if self._started or not self._first_read_done:
                return
            if self.newest is not None and not self._first_drawn.is_set():
                return
            self._started = True
        if self.newest is not None:
            gc.freeze()
        gc.enable()

    def _publish(self, snapshot: WorkspaceSnapshot, upto: int = 0) -> None:
        with self._drawn:
            self.newest, self._newest_upto = snapshot, upto
        self._on_snapshot(snapshot)
