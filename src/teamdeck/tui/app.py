"""The teamdeck app: the screens, the global keys, and the wiring of the live workspace.

Data flows one way. The live workspace (live/workspace.py, no Textual) watches the
files and refreshes the snapshot on the app's workers; each new snapshot arrives as a
:class:`SnapshotChanged` message and the main screen draws it. A widget asks for an
action by posting a :class:`RunAction`; the app hands it to its action runner
(live/actions.py), which runs one protocol call at a time on the action worker and has
exactly the paths it wrote read - there is no optimistic update: what the person sees
is what is on disk. Every :data:`CLOCK_TICK_S` the live workspace also looks at the
clock (view.retime): a shutdown request becomes overdue by time passing alone. Any
failure becomes a notice, never an exit.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from textual import events, on, work
from textual.actions import ActionParseResult
from textual.actions import parse as parse_action
from textual.app import App
from textual.command import Provider
from textual.content import Content
from textual.dom import DOMNode
from textual.message import Message
from textual.notifications import Notification, Notify
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input
from textual.worker import Worker, WorkerState

import teamdeck.tui.registry as registry
from teamdeck.live.actions import ActionRunner, Outcome
from teamdeck.live.workspace import LiveWorkspace
from teamdeck.resources import data_dir
from teamdeck.tui.alerter import Alerter
from teamdeck.tui.inputs import set_cursor_blink
from teamdeck.tui.messages import LoadOlderEvents, RunAction, SnapshotChanged
from teamdeck.tui.problem_news import ProblemNotices
from teamdeck.tui.render import NOTICE_CHARS, cell
from teamdeck.tui.screens.main import MainScreen, main_screen
from teamdeck.tui.widgets.confirm_bar import ConfirmRequest, ask_confirm
from teamdeck.tui.widgets.notice_line import Hint
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.readers.runs import live_runs
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace
    from teamdeck.tui.first_read import FirstRead
    from teamdeck.tui.host import DeckHost

MAX_NOTICES = 4
"""The most notices kept up at once (the notice line shows the one that matters most
and counts the others): a quick run of actions would otherwise keep a long tail of
them; the oldest information notices go first, warnings and errors stay until they
time out."""
NOTICE_HISTORY = 500
"""The most notices the history keeps (``n``: tui/screens/notices.py), the oldest
going first: the notice line shows one and counts the others, which time out."""
NOTICE_WAIT_S = 0.5
"""The longest an action's success notice waits for the frame that draws its writes."""
CLOCK_TICK_S = 5.0
"""How often the live view checks whether time alone changed something (a shutdown
request overdue, an MCP heartbeat gone stale, a team task stalled); cheap: only what
depends on the clock is derived again, and nothing is drawn unless it changed."""


def _teamdeck_commands() -> type[Provider]:
    """The palette's commands, imported when the palette first opens (Textual accepts a
    callable that returns the provider): not needed for the first frame."""
    from teamdeck.tui.commands import TeamdeckCommands

    return TeamdeckCommands


TYPE_INTO_S = 1.0
"""The longest keys are held for a text line being opened (its action runs within a
frame or two; a key later than this is the person's next)."""
LINE_ACTIONS = frozenset({"filter"})
"""The actions that open a text line the next keys are typed into (``/``)."""


class TeamdeckApp(App[None]):
    """The live supervisor of one workspace. Build it with :func:`create_app`."""

    TITLE = "teamdeck"
    CSS_PATH = [data_dir("styles") / "app.tcss", data_dir("styles") / "plans.tcss"]
    COMMANDS = {_teamdeck_commands}
    """One provider, which lists Textual's system commands after teamdeck's (see tui/commands.py)."""
    BINDINGS = registry.scope_bindings("app")

    class NoticeWaiting(Message):
        """An action's success notice waits for the frame that draws its writes: show
        it after :data:`NOTICE_WAIT_S` if no frame did (posted from the action thread,
        which must not wait for the UI before its writes are read)."""

        def __init__(self, waiting: tuple[object, str]) -> None:
            super().__init__()
            self.waiting = waiting

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
        self.cursor_blink = cursor_blink
        """Whether text cursors blink (off for snapshots: every frame the same)."""
        self.snapshot: WorkspaceSnapshot | None = None
        """The snapshot on screen (None until the first one is read)."""
        self._newest: WorkspaceSnapshot | None = None
        """The newest snapshot posted to the screen (only that one is drawn)."""
        self.notice_history: deque[Notification] = deque(maxlen=NOTICE_HISTORY)
        """Every notice shown, oldest first (:data:`NOTICE_HISTORY` at most): what the
        notice line counted as "+2 more" and what timed out can be read again."""
        self._notices_waiting: list[tuple[object, str]] = []
        self.runs_end_with_it = False
        """The runner's runs end when this app does (``teamdeck demo`` hosts its own
        runner): quitting asks nothing about them."""
        self._line_opening: tuple[list[events.Key], float] | None = None
        """The keys held since a key that opens a text line, and until when (:meth:`on_event`)."""
        """Success notices of actions whose writes are not drawn yet (appended on the
        action thread, taken on the UI thread: list operations are atomic)."""
        self.problem_notices = ProblemNotices(registry.PANEL_TITLES["problems"])
        """The notices of files broken and fixed (tui/problem_news.py)."""
        self.live = LiveWorkspace(
            ws,
            on_snapshot=self._publish,
            on_error=self._refresh_failed,
            on_join=self._auto_join,
            watch=watch,
            force_polling=force_polling,
            first_read=first_read,
            shows=True,
        )
        """The files, watched and read (live/workspace.py)."""
        self.runner = ActionRunner(ws, self.live, self._action_done)
        """The actions, one at a time in the order asked (live/actions.py)."""
        self.alerter = Alerter(
            self, ws, queue_shown=lambda: self.main.shows_queue, redraw_queue=lambda: self.main.redraw_queue()
        )
        """Bell, desktop notification, new marks and notify.command (tui/alerter.py)."""

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(id="main")

    @property
    def main(self) -> MainScreen:
        """The main screen (the bottom of the screen stack)."""
        return main_screen(self)

    @property
    def read_only(self) -> bool:
        """Writes are off: the ``--read-only`` flag or the workspace setting."""
        return self.ws.read_only or (self.snapshot is not None and self.snapshot.read_only)

    @property
    def settled(self) -> bool:
        """No change is waiting to be read, no refresh is running, and the newest
        snapshot is the one on screen (tests wait on it)."""
        return self.live.settled and self.snapshot is self._newest

    @property
    def watching(self) -> bool:
        """The watcher is in place: every change from now on reaches the view."""
        return self.live.watching

    @property
    def acting(self) -> bool:
        """An action is waiting or running (tests wait on it)."""
        return self.runner.acting

    # --- lifecycle: the live workspace and the action runner on workers -----------------

    def on_mount(self) -> None:
        if self.live.watch_files:
            self._watch()
        self._refresher()
        self._action_thread()
        self.set_interval(CLOCK_TICK_S, self.recheck_clock)

    def on_unmount(self) -> None:
        self.alerter.stop()
        self.live.stop()
        self.runner.stop()

    @work(thread=True, group="watch", exit_on_error=False, description="watch the workspace")
    def _watch(self) -> None:
        self.live.run_watcher()

    @work(thread=True, group="refresh", exit_on_error=False, description="read the workspace")
    def _refresher(self) -> None:
        self.live.run_refresher()

    @work(thread=True, group="action-thread", exit_on_error=False, description="run actions")
    def _action_thread(self) -> None:
        self.runner.run()

    # --- refreshing -------------------------------------------------------------------

    def paths_changed(self, paths: Iterable[Path]) -> None:
        """Note that ``paths`` changed; they are read soon. Safe from any thread."""
        self.live.paths_changed(paths)

    def recheck_clock(self) -> None:
        """Have the refresher look at the workspace clock again (a shutdown request
        may have become overdue); every :data:`CLOCK_TICK_S`, and tests that move time."""
        self.live.recheck_clock()

    @on(LoadOlderEvents)
    def _load_older_events(self) -> None:
        self.live.load_older()

    def _publish(self, snapshot: WorkspaceSnapshot) -> None:
        """A new snapshot (on the refresher's thread): post it to be drawn."""
        self._newest = snapshot
        self.post_message(SnapshotChanged(snapshot))

    def _refresh_failed(self, err: Exception) -> None:
        """A refresh raised (on the refresher's thread): say so; live updates go on."""
        self.call_from_thread(
            self.notify,
            cell(f"{type(err).__name__}: {err}", NOTICE_CHARS),
            title="Could not refresh the view",
            severity="error",
            markup=False,
        )

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
        if before is not None and before.problems is not message.snapshot.problems:
            drop, show = self.problem_notices.news(before, message.snapshot)
            for gone in drop:
                self._drop_notice(gone)
            for news in show:
                self.post_message(Notify(news))
        if first and message.snapshot.read_only:
            self.notify(
                cell(f"read-only: {message.snapshot.read_only_reason}; actions are disabled", NOTICE_CHARS),
                severity="warning",
                markup=False,
            )
        self.main.show(message.snapshot)
        if self.acting:  # an action may wait for its decision to be drawn (live/actions.py)
            # After the next screen update and the one after it: what the widgets asked
            # to redraw reaches the screen on their own turn, which may come after the first.
            self.call_after_refresh(self.call_after_refresh, self.live.shown, message.snapshot)
        self.alerter.shown(before, message.snapshot)
        if self.main.is_mounted and self.main.confirm_bar.display:
            # In the frame after the one that shows the answer: hiding the bar and moving
            # the focus lay out the screen and restyle the list and the footer.
            self.call_after_refresh(self.main.confirm_bar.hide_answered)
        if self._notices_waiting:
            self.call_after_refresh(self._show_waiting_notices)
        if first:
            # Once it is on screen, the live workspace reads what it put off until then
            # and turns garbage collection back on (live/workspace.py).
            self.call_after_refresh(self.live.first_drawn)

    def _on_notify(self, event: Notify) -> None:
        """Show a notice, first dropping the oldest information notices beyond
        :data:`MAX_NOTICES` (Textual keeps every notice until its timeout)."""
        shown = self.notices()
        excess = len(shown) + 1 - MAX_NOTICES
        for notice in [notice for notice in shown if notice.severity == "information"][: max(0, excess)]:
            self._drop_notice(notice)
        self.notice_history.append(event.notification)
        super()._on_notify(event)

    def notices(self) -> list[Notification]:
        """The notices not yet expired, oldest first.

        Not ``list(self._notifications)``: ``list()`` asks the collection its length after
        taking its iterator, Textual's ``__len__`` drops expired notices from the dict
        that iterator walks, and a notice expiring in between raised "dictionary changed
        size during iteration" (a storm of notices killed the app). Iterating first and
        collecting from the iterator never asks the collection again."""
        return [*iter(self._notifications)]

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
            main.notice_line.show(self.notices())

    def on_app_focus(self) -> None:
        self.alerter.focus_changed()

    def on_app_blur(self) -> None:
        self.alerter.focus_changed()

    # --- actions ------------------------------------------------------------------------

    @on(RunAction)
    def _run_action(self, message: RunAction) -> None:
        """A widget asked for an action: run it after the ones asked before."""
        self.runner.submit(message.action)

    def _auto_join(self, task_ids: list[str]) -> None:
        """Join the tasks whose workers' final.json appeared or changed (the live
        workspace's rule said so; on the watcher's thread: posting is safe from there)."""
        from teamdeck.tui.panels.tasks.actions import join  # not needed for the first frame

        for task_id in task_ids:
            self.post_message(join(task_id))

    def _action_done(self, outcome: Outcome) -> None:
        """How an action went (on the action thread). A success that wrote files waits
        for the frame that shows them: a notice mounted first is laid out and drawn
        before that frame, which then comes ~10 ms later."""
        text = cell(outcome.text, NOTICE_CHARS)
        if outcome.failed:
            self.call_from_thread(
                self.notify,
                text,
                title=cell(f"Could not {outcome.what}", 80),
                severity="error",
                markup=False,
                timeout=10,
            )
        elif outcome.wrote:
            waiting = (object(), text)
            self._notices_waiting.append(waiting)
            self.post_message(self.NoticeWaiting(waiting))
        else:
            self.call_from_thread(self.notify, text, markup=False)

    @on(NoticeWaiting)
    def _notice_waiting(self, message: NoticeWaiting) -> None:
        self.set_timer(NOTICE_WAIT_S, partial(self._show_waiting_notices, message.waiting))

    def _show_waiting_notices(self, only: tuple[object, str] | None = None) -> None:
        """Show the success notices of the actions whose writes are on screen now, or
        just ``only`` once it waited :data:`NOTICE_WAIT_S` (a write the view does not
        show draws nothing)."""
        for waiting in [waiting for waiting in self._notices_waiting if only is None or waiting == only]:
            self._notices_waiting.remove(waiting)
            self.notify(waiting[1], markup=False)

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
        if event.worker.group == "watch" and not self.live.stopped:
            self.notify("live updates stopped; restart teamdeck to resume them", severity="warning", markup=False)

    def apply_cursor_blink(self, root: Widget) -> None:
        """Apply the cursor-blink setting to every text input under ``root`` (call
        from the ``on_mount`` of whatever composes inputs)."""
        set_cursor_blink(root, self.cursor_blink)

    # --- global keys --------------------------------------------------------------------

    def type_into(self, target: Widget) -> None:
        """See tui/host.py's ``DeckHost.type_into``: the keys held since the key that
        opens ``target`` go to it, in order."""
        opening, self._line_opening = self._line_opening, None
        for key in opening[0] if opening is not None else ():
            target.post_message(events.Key(key.key, key.character))

    async def on_event(self, event: events.Event) -> None:
        """Printable keys that arrive after a key that opens a text line (``/``) and
        before its action ran are held for that line (:meth:`type_into`): Textual runs a
        binding's action after the keys one terminal read already queued, so in
        ``/payment`` the ``a`` reached the list and opened Approve on the selected
        decision, the rest went into its note, and an Enter would have approved it. Held
        at most :data:`TYPE_INTO_S`; keys no line took by then go where they would have."""
        if isinstance(event, events.Key) and not event.is_forwarded:
            opening = self._line_opening
            if opening is not None and time.monotonic() > opening[1]:
                self._line_opening = None
                for held in opening[0]:
                    await super().on_event(held)
            elif opening is not None and event.is_printable:
                opening[0].append(event)
                return
            elif opening is None and self._opens_a_line(event.key):
                self._line_opening = ([], time.monotonic() + TYPE_INTO_S)
        await super().on_event(event)

    def _opens_a_line(self, key: str) -> bool:
        """Whether ``key`` is bound here to an action that opens a text line."""
        active = self.screen.active_bindings.get(key)
        return active is not None and active.enabled and active.binding.action.rsplit(".", 1)[-1] in LINE_ACTIONS

    def on_key(self, event: events.Key) -> None:
        """A key no widget took, before the app's bindings (Textual calls this, then
        App's own handler unless the default is prevented). A printable one while a
        text input has the focus was typed ahead: Textual sent it to the widget focused
        when it arrived, and the key before it moved the focus since (``a`` then a note:
        the confirm bar's note took it from the list); it goes to the input, as it would
        have typed a moment later, not to the bindings (``q`` would quit). A focused
        input takes every printable key sent to it, so no other key comes here so."""
        focused = self.focused
        if event.is_printable and isinstance(focused, Input):
            event.prevent_default()
            focused.post_message(events.Key(event.key, event.character))

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

    async def action_quit(self) -> None:
        """Quit; while ``teamdeck run`` has runs going in this workspace, ask first in the
        main screen's confirm bar (over which any dialog is closed). The runner is a
        process of its own: its runs go on after the TUI is gone, and a person who
        started it from here may think quitting stops them."""
        live = live_runs(self.snapshot.runs, self.ws.clock()) if self.snapshot is not None else []
        if not live or self.runs_end_with_it or self.main not in self.screen_stack:
            self.exit()
            return
        while self.screen is not self.main:
            await self.pop_screen()
        names = ", ".join(cell(key, 64) for key in live[:5]) + (f" and {len(live) - 5} more" if len(live) > 5 else "")
        count = "1 run of teamdeck run goes" if len(live) == 1 else f"{len(live)} runs of teamdeck run go"
        request = ConfirmRequest(
            Content(f"Quit while {count} on?"),
            Content(
                f"Running now: {names}. teamdeck run is a separate process: its runs continue "
                "without the TUI, and quitting stops none of them (x in the roster stops one). "
                "teamdeck tui shows them again."
            ),
            confirm="Quit",
        )
        ask_confirm(self.main, request, lambda _confirmed: self.exit())

    def action_help_quit(self) -> None:
        """Ctrl+C (Textual's binding: it does not quit, as it copies in a text input):
        say which key quits, shown as the footer shows keys. Textual's own notice is
        markup with a title the notice line drew raw, and its information severity took
        the success tick; a :class:`Hint` is plain words and claims nothing done."""
        for active in self.active_bindings.values():
            if active.binding.action in ("quit", "app.quit"):
                key = self.get_key_display(active.binding)
                self.post_message(Notify(Hint(f"press {key} to quit", timeout=self.NOTIFICATION_TIMEOUT)))
                return

    def action_notices(self) -> None:
        """``n``: every notice so far, newest first."""
        from teamdeck.tui.screens.notices import NoticesScreen  # not needed for the first frame

        if not isinstance(self.screen, NoticesScreen):
            self.push_screen(NoticesScreen(tuple(self.notice_history)))

    def action_help(self) -> None:
        from teamdeck.tui.screens.help import HelpScreen  # not needed for the first frame

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(str(self.ws.root)))


if TYPE_CHECKING:
    _HOSTS_THE_WIDGETS: type[DeckHost] = TeamdeckApp
    """The app is what the widgets ask for (tui/host.py): checked by the type checker."""


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
