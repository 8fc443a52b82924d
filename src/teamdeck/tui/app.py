"""The teamdeck app: wiring, global keys, the watcher and the refresh loop.

Data flows one way: the watcher thread collects changed paths; one
refresh worker at a time turns them into the next snapshot (view.refresh) and posts a
:class:`SnapshotChanged`; the main screen draws it. An action runs a protocol function
on the action thread and then has exactly the paths it wrote refreshed - there is no
optimistic update: what the person sees is what is on disk. Every
:data:`CLOCK_TICK_S` the refresher also looks at the clock (view.retime): a shutdown
request becomes overdue by time passing alone. Any failure becomes a notice, never an
exit.
"""

from __future__ import annotations

import gc
import queue
import threading
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.actions import ActionParseResult
from textual.actions import parse as parse_action
from textual.app import App
from textual.command import Provider
from textual.dom import DOMNode
from textual.notifications import Notification, Notify
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, TextArea
from textual.worker import Worker, WorkerState

from teamdeck.errors import TeamdeckError
from teamdeck.protocol.written import recorded, stamps
from teamdeck.resources import data_dir
from teamdeck.tui import actions, registry
from teamdeck.tui.alerter import Alerter
from teamdeck.tui.messages import SnapshotChanged
from teamdeck.tui.render import cell
from teamdeck.tui.screens.main import MainScreen
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.build import (
    build_snapshot,
    changed_between,
    check_outputs,
    file_record,
    load_older,
    refresh,
    retime,
    unchecked_outputs,
)
from teamdeck.view.snapshot import WorkspaceSnapshot
from teamdeck.watch import watch_batches

if TYPE_CHECKING:
    from teamdeck.protocol.written import Stamp
    from teamdeck.store.workspace import Workspace
    from teamdeck.tui.first_read import FirstRead

NOTICE_CHARS = 400
MAX_NOTICES = 4
"""The most notices kept up at once (the notice line shows the one that matters most
and counts the others): a quick run of actions would otherwise keep a long tail of
them; the oldest information notices go first, warnings and errors stay until they
time out."""
NOTICE_WAIT_S = 0.5
"""The longest an action's success notice waits for the frame that draws its writes."""
CLOCK_TICK_S = 5.0
"""How often the live view checks whether time alone changed something (a shutdown
request overdue, an MCP heartbeat gone stale, a team task stalled); cheap: only what
depends on the clock is derived again, and nothing is drawn unless it changed."""
WATCH_SETUP_S = 2.0
"""The longest the first read waits for the watcher to be in place."""
_STOP = "stop"
_OLDER = "older"
_CLOCK = "clock"
_OUTPUTS = "outputs"
OUTPUTS_PER_REFRESH = 100
"""Tasks whose workers' outputs are checked in one go after the first frame: at 1,000
tasks (5,800 outputs) checking them all took seconds, during which no change of the
workspace was shown and quitting waited (the process exits once the refresher does)."""


def _teamdeck_commands() -> type[Provider]:
    """The palette's commands, imported when the palette first opens (Textual accepts a
    callable that returns the provider): not needed for the first frame."""
    from teamdeck.tui.commands import TeamdeckCommands

    return TeamdeckCommands


class TeamdeckApp(App[None]):
    """The live supervisor of one workspace. Build it with :func:`create_app`."""

    TITLE = "teamdeck"
    CSS_PATH = [data_dir("styles") / "app.tcss", data_dir("styles") / "plans.tcss"]
    COMMANDS = {_teamdeck_commands}
    """One provider, which lists Textual's system commands after teamdeck's (see tui/commands.py)."""
    BINDINGS = registry.bindings("app")

    def __init__(
        self,
        ws: Workspace,
        *,
        watch: bool = True,
        force_polling: bool | None = None,
        cursor_blink: bool = True,
        first_read: FirstRead | None = None,
    ) -> None:
        super().__init__()
        self.ws = ws
        self._first_read = first_read
        """The child process reading the first snapshot (None: read it here)."""
        self.watch_files = watch
        self.cursor_blink = cursor_blink
        """Whether text cursors blink (off for snapshots: every frame the same)."""
        self.force_polling = force_polling
        self.snapshot: WorkspaceSnapshot | None = None
        """The snapshot on screen (None until the first one is read)."""
        self._newest: WorkspaceSnapshot | None = None
        self._changes: queue.SimpleQueue[frozenset[Path] | str] = queue.SimpleQueue()
        self._busy = threading.Event()
        self._stop = threading.Event()
        self._echoes: dict[Path, Stamp | None] = {}
        """Files the app's own actions wrote and refreshed, with their stamps then."""
        self._echo_lock = threading.Lock()
        self._actions: queue.SimpleQueue[tuple[str, Callable[[], str | None]] | str] = queue.SimpleQueue()
        self._actions_waiting = 0
        self._notices_waiting: list[tuple[object, str]] = []
        """Success notices of actions whose writes are not drawn yet (appended on the
        action thread, taken on the UI thread: list operations are atomic)."""
        self._action_lock = threading.Lock()
        self._watching = threading.Event()
        """Set once the watcher's watch is in place (a change after it is seen)."""
        self.alerter = Alerter(self)
        """Bell, desktop notification, new marks and notify.command (tui/alerter.py)."""

    def get_default_screen(self) -> Screen:
        return MainScreen(id="main")

    @property
    def main(self) -> MainScreen:
        """The main screen (the bottom of the screen stack)."""
        screen = self.screen_stack[0]
        assert isinstance(screen, MainScreen)
        return screen

    @property
    def read_only(self) -> bool:
        """Writes are off: the ``--read-only`` flag or the workspace setting."""
        return self.ws.read_only or (self.snapshot is not None and self.snapshot.read_only)

    @property
    def settled(self) -> bool:
        """No change is waiting to be read and no refresh is running (tests wait on it)."""
        return self._changes.empty() and not self._busy.is_set()

    # --- lifecycle ------------------------------------------------------------------

    @property
    def watching(self) -> bool:
        """The watcher is in place: every change from now on reaches the view."""
        return self._watching.is_set()

    def on_mount(self) -> None:
        if self.watch_files:
            self._watch()
        self._refresher()
        self._action_thread()
        self.set_interval(CLOCK_TICK_S, self.recheck_clock)

    def on_unmount(self) -> None:
        self.alerter.stop()
        self._stop.set()
        self._changes.put(_STOP)
        self._actions.put(_STOP)

    @work(thread=True, group="watch", exit_on_error=False, description="watch the workspace")
    def _watch(self) -> None:
        """Feed each batch of changed paths straight to the refresher (no hop through
        the UI thread: it may be busy drawing)."""
        from teamdeck.protocol.worker_outputs import tasks_with_final_output  # JSON Schema: only here, off the UI

        try:
            for batch in watch_batches(
                self.ws.root, self._stop, force_polling=self.force_polling, ready=self._watching
            ):
                if self._stop.is_set():
                    return
                batch = self._drop_echoes(batch)
                if not batch:
                    continue
                self._changes.put(batch)
                joins = tasks_with_final_output(self.ws, batch)
                if joins:
                    self.call_from_thread(self._auto_join, joins)
        finally:
            self._watching.set()  # a watcher that failed must not keep the first read waiting

    @work(thread=True, group="refresh", exit_on_error=False, description="read the workspace")
    def _refresher(self) -> None:
        """Build the first snapshot, then refresh it from every batch of changes: one
        thread, so one refresh at a time; batches that queued up meanwhile are merged
        into one refresh (only the newest state matters)."""
        self._busy.set()
        if self.watch_files:
            # Read only once the watch is in place, so a change made between the read and
            # the watch cannot be missed (bounded: a watcher that cannot start does not
            # keep the screen empty).
            self._watching.wait(WATCH_SETUP_S)
        gc.disable()  # the first read allocates most of what the app holds: no collections meanwhile
        try:
            snapshot = self._first_snapshot()
            self._publish(snapshot)
            self._changes.put(_OUTPUTS)  # the workers' outputs, right after the first frame (which does not show them)
        finally:
            self._busy.clear()
            if self._newest is None:
                gc.enable()
        while True:
            item = self._changes.get()
            self._busy.set()
            try:
                paths: set[Path] = set()
                older = clock = outputs = False
                while True:
                    if item == _STOP:
                        return
                    if item == _OLDER:
                        older = True
                    elif item == _CLOCK:
                        clock = True
                    elif item == _OUTPUTS:
                        outputs = True
                    elif not isinstance(item, str):
                        paths |= item
                    try:
                        item = self._changes.get_nowait()
                    except queue.Empty:
                        break
                before = snapshot
                try:
                    if outputs:
                        snapshot = check_outputs(snapshot, OUTPUTS_PER_REFRESH)
                        if unchecked_outputs(snapshot):
                            self._changes.put(_OUTPUTS)  # the rest after the changes queued meanwhile
                    if paths:
                        snapshot = refresh(snapshot, paths)
                    if older:
                        snapshot = load_older(snapshot)
                    if clock:
                        snapshot = retime(snapshot)
                except Exception as err:  # noqa: BLE001 - a bad refresh must not end live updates
                    self.call_from_thread(
                        self.notify,
                        cell(f"{type(err).__name__}: {err}", NOTICE_CHARS),
                        title="Could not refresh the view",
                        severity="error",
                        markup=False,
                    )
                    continue
                if snapshot is not before:
                    self._publish(snapshot)
            finally:
                self._busy.clear()

    def _first_snapshot(self) -> WorkspaceSnapshot:
        """The first snapshot, without the workers' outputs: the one the forked child
        read, with every file that changed between its record and this one read again
        (the watch is in place now: whatever changes later, it reports), or else read
        here."""
        if self._first_read is None:
            return build_snapshot(self.ws, check_outputs=False, record=True)
        now = file_record(self.ws)
        taken, self._first_read = self._first_read.take(), None
        if taken is None:
            return build_snapshot(self.ws, check_outputs=False, record=True)
        record, snapshot = taken
        changed = changed_between(record, now)
        return refresh(snapshot, changed) if changed else snapshot

    # --- refreshing -------------------------------------------------------------------

    def paths_changed(self, paths: Iterable[Path]) -> None:
        """Note that ``paths`` changed; the refresher reads them soon (merged with any
        other change that arrives meanwhile). Safe from any thread."""
        batch = frozenset(paths)
        if batch:
            self._changes.put(batch)

    def _publish(self, snapshot: WorkspaceSnapshot) -> None:
        self._newest = snapshot
        self.post_message(SnapshotChanged(snapshot))

    @on(SnapshotChanged)
    def _show(self, message: SnapshotChanged) -> None:
        if message.snapshot is not self._newest:
            return  # a newer one is on its way: only the newest is drawn
        if not self.is_running:
            return  # the app is closing (quit while a change was read): its widgets are going
        before, first = self.snapshot, self.snapshot is None
        self.snapshot = message.snapshot
        for notice in message.snapshot.notices:
            self.notify(cell(notice, NOTICE_CHARS), severity="warning", markup=False)
        if first and message.snapshot.read_only:
            self.notify(
                cell(f"read-only: {message.snapshot.read_only_reason}; actions are disabled", NOTICE_CHARS),
                severity="warning",
                markup=False,
            )
        self.main.show(message.snapshot)
        self.alerter.shown(before, message.snapshot)
        if self.main.is_mounted and self.main.confirm_bar.display:
            # In the frame after the one that shows the answer: hiding the bar and moving
            # the focus lay out the screen and restyle the list and the footer.
            self.call_after_refresh(self.main.confirm_bar.hide_answered)
        if self._notices_waiting:
            self.call_after_refresh(self._show_waiting_notices)
        if first:
            # Everything alive now (the widget tree, the first snapshot) lives as long as
            # the app: keep it out of every future garbage collection, whose full passes
            # would walk it all and stall the UI (355 ms per pass at 1M live objects). Collection was off
            # while it was read.
            gc.freeze()
            gc.enable()

    def _on_notify(self, event: Notify) -> None:
        """Show a notice, first dropping the oldest information notices beyond
        :data:`MAX_NOTICES` (Textual keeps every notice until its timeout)."""
        shown = list(self._notifications)
        excess = len(shown) + 1 - MAX_NOTICES
        for notice in [notice for notice in shown if notice.severity == "information"][: max(0, excess)]:
            self._drop_notice(notice)
        super()._on_notify(event)

    def _drop_notice(self, notice: Notification) -> None:
        """Take ``notice`` off the screen before its timeout."""
        self._unnotify(notice, refresh=False)

    def _refresh_notifications(self) -> None:
        """Show the notices on the main screen's notice line (tui/widgets/notice_line.py),
        never as toasts: those covered the detail pane and the note being typed."""
        self.refresh_notices()

    def refresh_notices(self) -> None:
        """Draw the notices up now on the notice line (and hide it when there is none);
        off in tests that turn notifications off, as Textual's toasts are."""
        if self._disable_notifications or not self.screen_stack:
            return
        main = self.main
        if main.is_mounted:
            main.notice_line.show(list(self._notifications))

    def on_app_focus(self) -> None:
        self.alerter.focus_changed()

    def on_app_blur(self) -> None:
        self.alerter.focus_changed()

    def load_older_events(self) -> None:
        """Load older lines of every log into the events view."""
        self._changes.put(_OLDER)

    def recheck_clock(self) -> None:
        """Have the refresher look at the workspace clock again (a shutdown request
        may have become overdue); every :data:`CLOCK_TICK_S`, and tests that move time."""
        self._changes.put(_CLOCK)

    # --- actions ------------------------------------------------------------------------

    def perform(self, what: str, call: Callable[[], str | None]) -> None:
        """Run a protocol call on the action thread; say how it went; refresh what it
        wrote. Actions run one at a time, in the order asked.

        Args:
            what: what is being done, for the notice ("approve gate g1").
            call: the protocol call; returns a line for the person (or None).
        """
        with self._action_lock:
            self._actions_waiting += 1
        self._actions.put((what, call))

    @property
    def acting(self) -> bool:
        """An action is waiting or running (tests wait on it)."""
        return self._actions_waiting > 0

    @work(thread=True, group="action-thread", exit_on_error=False, description="run actions")
    def _action_thread(self) -> None:
        """One long-lived thread for the actions: a key press starts its protocol call
        at once (no thread to start first)."""
        while True:
            item = self._actions.get()
            if isinstance(item, str):
                return  # _STOP
            what, call = item
            try:
                self._perform(what, call)
            except Exception as err:  # noqa: BLE001 - a bug in one action must not stop the others
                self.call_from_thread(
                    self.notify,
                    cell(f"{type(err).__name__}: {err}", NOTICE_CHARS),
                    title=cell(f"Could not {what}", 80),
                    severity="error",
                    markup=False,
                    timeout=10,
                )
            finally:
                with self._action_lock:
                    self._actions_waiting -= 1

    def _perform(self, what: str, call: Callable[[], str | None]) -> str:
        written: set[Path] = set()
        read_early: dict[Path, Stamp | None] = {}

        def replaced(path: Path) -> None:
            # A document replaced whole (task.yaml) is read at once: the decision shows
            # while the worker is still being messaged.
            read_early.update(stamps((path,)))
            self._refresh_own_write({path})

        try:
            done = recorded(call, written, on_replaced=replaced).result
        except TeamdeckError as err:
            self._refresh_rest(written, read_early)
            self.call_from_thread(
                self.notify,
                cell(str(err), NOTICE_CHARS),
                title=cell(f"Could not {what}", 80),
                severity="error",
                markup=False,
                timeout=10,
            )
            return "failed"
        except BaseException:
            self._refresh_rest(written, read_early)
            raise
        notice = cell(done or f"done: {what}", NOTICE_CHARS)
        if not written:
            self.call_from_thread(self.notify, notice, markup=False)
            return "done"
        # The notice waits for the frame that shows what was written: a notice mounted
        # first is laid out and drawn before that frame, which then comes ~10 ms later.
        waiting = (object(), notice)
        self._notices_waiting.append(waiting)
        self._refresh_rest(written, read_early)
        self.call_from_thread(self.set_timer, NOTICE_WAIT_S, partial(self._show_waiting_notices, waiting))
        return "done"

    def _refresh_rest(self, written: set[Path], read_early: dict[Path, Stamp | None]) -> None:
        """Refresh what an action wrote, but not the files read while it ran and not
        written again since."""
        now = stamps(read_early)
        self._refresh_own_write({path for path in written if path not in read_early or now[path] != read_early[path]})

    def _show_waiting_notices(self, only: tuple[object, str] | None = None) -> None:
        """Show the success notices of the actions whose writes are on screen now, or
        just ``only`` once it waited :data:`NOTICE_WAIT_S` (a write the view does not
        show draws nothing)."""
        for waiting in [waiting for waiting in self._notices_waiting if only is None or waiting == only]:
            self._notices_waiting.remove(waiting)
            self.notify(waiting[1], markup=False)

    def _refresh_own_write(self, written: set[Path]) -> None:
        """Refresh exactly what an action wrote, now, and remember the stamp of each
        file and of the directory it is in (a file replaced there changes the
        directory too): when the watcher reports the same write, it is not read and
        drawn again."""
        if not written:
            return
        if self.watch_files:
            with self._echo_lock:
                self._echoes.update(stamps(written | {path.parent for path in written}))
        self.paths_changed(written)

    def _drop_echoes(self, batch: frozenset[Path]) -> frozenset[Path]:
        """``batch`` without the paths that are the app's own writes, already read
        (a path whose stamp changed since was written again by someone: kept)."""
        with self._echo_lock:
            if not self._echoes:
                return batch
            mine = {path for path in batch if path in self._echoes}
            if not mine:
                return batch
            now = stamps(mine)
            echoes = {path for path in mine if now[path] == self._echoes.pop(path)}
        return batch - echoes

    def _auto_join(self, task_ids: set[str]) -> None:
        """Join the tasks whose workers' final.json appeared or changed (unless the
        workspace turned autoJoin off, or writes are off)."""
        snapshot = self._newest
        if snapshot is None or not snapshot.auto_join or self.read_only:
            return
        for task_id in sorted(task_ids):
            actions.join(self, task_id)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """A worker that raised: say so, keep running (no traceback, no exit)."""
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        description = event.worker.description or event.worker.name or "background work"
        self.notify(
            cell(f"{type(error).__name__}: {error}", NOTICE_CHARS),
            title=cell(f"Could not {description}", 80),
            severity="error",
            markup=False,
            timeout=10,
        )
        if event.worker.group == "watch" and not self._stop.is_set():
            self.notify("live updates stopped; restart teamdeck to resume them", severity="warning", markup=False)

    def apply_cursor_blink(self, root: Widget) -> None:
        """Apply the cursor-blink setting to every text input under ``root`` (call
        from the ``on_mount`` of whatever composes inputs)."""
        for widget in root.query(Input).results():
            widget.cursor_blink = self.cursor_blink
        for area in root.query(TextArea).results():
            area.cursor_blink = self.cursor_blink

    # --- global keys --------------------------------------------------------------------

    async def run_action(
        self,
        action: str | ActionParseResult,
        default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        """Run ``action``; a panel's key that is greyed (disabled) says why instead of
        doing nothing."""
        done = await super().run_action(action, default_namespace, namespaces)
        if not done and isinstance(default_namespace, Panel) and isinstance(action, str):
            _, name, parameters = parse_action(action)
            if default_namespace.check_action(name, parameters) is None:
                scope = (default_namespace.id or "").removesuffix("-panel")
                label = registry.find(scope, name, *parameters).label if scope in registry.PANEL_TITLES else name
                why = default_namespace.why_disabled(name)
                self.notify(cell(f"{label}: {why}", NOTICE_CHARS), severity="warning", timeout=4, markup=False)
        return done

    def action_help(self) -> None:
        from teamdeck.tui.screens.help import HelpScreen  # not needed for the first frame

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())


def create_app(
    ws: Workspace,
    *,
    watch: bool = True,
    read_only: bool = False,
    force_polling: bool | None = None,
    cursor_blink: bool = True,
    first_read: FirstRead | None = None,
) -> TeamdeckApp:
    """The app for a workspace: the one way the CLI and the tests build it.

    Args:
        ws: the workspace (with its clock, actor and read-only flag); the CLI opens it.
        watch: watch the files (off: only the app's own actions refresh the view;
            snapshots and most tests).
        read_only: refuse every write (the actions are shown disabled).
        force_polling: poll instead of inotify (None: decide from the filesystem).
        cursor_blink: text cursors blink (turn off for deterministic screenshots).
        first_read: a child already reading the first snapshot of ``ws`` as this
            returns (:func:`teamdeck.tui.open_app` starts one).

    Returns:
        The app, not yet running.
    """
    return TeamdeckApp(
        ws.with_read_only(read_only),
        watch=watch,
        force_polling=force_polling,
        cursor_blink=cursor_blink,
        first_read=first_read,
    )
