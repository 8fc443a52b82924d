"""The main screen: the overview line, the panels in tabs (tui/registry.py's
``PANELS``), the footer.

Panels: 1 decisions waiting (its DOM id: ``gates``), 2 roster, 3 inbox of the selected
member, 4 tasks, 5 events, 6 plans, 7 issues, 8 problems (the files that could not be read); the confirm bar docked above the footer.
``tab``/``shift+tab`` and ``1``-``8`` move between them; the footer shows the keys of
the panel that has the focus.

The first frame holds the overview and panel 1 only: panels 2-8 are imported and
mounted (tui/registry.py's ``later_panels``) just after the first snapshot is on screen (their modules, widgets, styles and
layout were ~60-90 ms of a start, for panels nobody sees yet). Whatever needs one of
them first waits for that mount (:meth:`MainScreen.mount_panels`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual import on
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import TabbedContent, TabPane

import teamdeck.tui.registry as registry
from teamdeck.tui.host import deck_host
from teamdeck.tui.messages import MessageMember, OpenDecision, OpenInbox, SelectionMoved
from teamdeck.tui.panels.decisions.panel import DecisionsPanel
from teamdeck.tui.widgets.confirm_bar import ConfirmBar
from teamdeck.tui.widgets.deck_footer import DeckFooter
from teamdeck.tui.widgets.notice_line import NoticeLine
from teamdeck.tui.widgets.overview_line import OverviewLine
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

AGE_TICK_S = 1.0
"""How often the ages on screen (the queue's, the roster's "last", the overview's
"oldest") are worked out again from the clock: the smallest unit shown is a second.
Only the age cells of the visible panel and the overview line are redrawn, from the
snapshot on screen; nothing is read again (the refresher's clock check is apart)."""
PANELS = tuple(registry.PANEL_TITLES)
TITLES = registry.PANEL_TITLES


class MainScreen(Screen[None]):
    """Everything at a glance; each panel owns its keys and actions."""

    BINDINGS = registry.scope_bindings("main")

    def compose(self) -> ComposeResult:
        # The confirm bar first: it lies on a layer of its own, docked at the bottom,
        # so its place here changes nothing drawn; but Textual numbers the painting
        # order of a screen's children from the last one, so a bar after them, shown
        # or hidden, renumbered every widget and the whole screen was drawn again.
        yield ConfirmBar(id="confirm-bar")
        yield OverviewLine(id="overview")
        yield NoticeLine(history_key=registry.BY_ID["notices"].key_text, id="notice-line")
        with TabbedContent(initial="gates", id="panels"):
            for name, title in TITLES.items():
                with TabPane(title, id=name):
                    if name == "gates":
                        yield DecisionsPanel(id="gates-panel")
        yield DeckFooter()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._ready = False
        self._waiting: WorkspaceSnapshot | None = None
        self.snapshot: WorkspaceSnapshot | None = None
        """The snapshot on screen."""
        self._binding_state: tuple[object, ...] = ()
        self.tabs_ready = False
        """The tabs activated their first panel (until then a switch made in code can be
        undone by that first activation)."""
        self._panels_mounted: asyncio.Event | None = None
        """Set once panels 2-8 are mounted (None until their mount started)."""

    @property
    def ready(self) -> bool:
        """The first snapshot is drawn, every panel is mounted and the tabs activated
        the first one (tests wait for it)."""
        mounted = self._panels_mounted is not None and self._panels_mounted.is_set()
        return self.snapshot is not None and self.tabs_ready and mounted

    async def mount_panels(self) -> None:
        """Mount panels 2-8 into their tabs, once; every caller returns when they are
        mounted (each draws the snapshot when it is first shown)."""
        if self._panels_mounted is not None:
            await self._panels_mounted.wait()
            return
        self._panels_mounted = asyncio.Event()
        await asyncio.gather(
            *(
                self.query_one(f"#{name}", TabPane).mount(panel(id=f"{name}-panel"))
                for name, panel in registry.later_panels()
            )
        )
        self._panels_mounted.set()

    def on_mount(self) -> None:
        self.set_interval(AGE_TICK_S, self.tick_ages)
        self._ready = True
        self.query_one(DecisionsPanel).focus_list()
        if self._waiting is not None:
            self.show(self._waiting)

    # --- drawing ------------------------------------------------------------------------

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        """Draw ``snapshot`` in every panel (once the panels exist)."""
        if not self._ready:
            self._waiting = snapshot
            return
        self._waiting = None
        first = self.snapshot is None
        self.snapshot = snapshot
        self.query_one(OverviewLine).show(snapshot, deck_host(self).ws.clock())
        self._draw_panel(self.current_panel)
        self.update_bindings()
        if first:
            self.call_after_refresh(self.mount_panels)

    def tick_ages(self) -> None:
        """Age what is on screen to the clock's now (see :data:`AGE_TICK_S`): the overview
        line and the visible panel; a panel shown later is drawn at its own now."""
        if self.snapshot is None:
            return
        now = deck_host(self).ws.clock()
        self.query_one(OverviewLine).show(self.snapshot, now)
        if self._panels_mounted is not None and self._panels_mounted.is_set() or self.current_panel == "gates":
            self.panel(self.current_panel).tick(now)

    def update_bindings(self) -> None:
        """Redraw the footer's keys, but only when one of the visible panel's actions
        became enabled or disabled: the footer rebuilds its widgets on every refresh,
        and doing that on each change churns the garbage collector."""
        panel = self.panel(self.current_panel)
        state = (
            self.current_panel,
            tuple(
                panel.check_action(action.name, action.parameters)
                for action in registry.scope_actions(self.current_panel)
            ),
        )
        if state != self._binding_state:
            self._binding_state = state
            self.refresh_bindings()

    def _draw_panel(self, name: str) -> None:
        """Draw the current snapshot in panel ``name`` unless it shows it already (only
        the visible panel is drawn on each change; the others catch up when shown)."""
        panel = self.panel(name)
        if self.snapshot is not None and panel.snapshot is not self.snapshot:
            panel.show(self.snapshot)

    # --- moving between panels ------------------------------------------------------------

    @property
    def current_panel(self) -> str:
        return self.query_one(TabbedContent).active or "gates"

    async def action_panel(self, name: str) -> None:
        """Show panel ``name`` and focus its list."""
        await self.mount_panels()
        tabs = self.query_one(TabbedContent)
        tabs.active = name
        self._draw_panel(name)
        self.panel(name).focus_list()

    async def action_next_panel(self, step: int) -> None:
        index = PANELS.index(self.current_panel) if self.current_panel in PANELS else 0
        await self.action_panel(PANELS[(index + step) % len(PANELS)])

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.tabs_ready = True
        if event.pane.id != self.current_panel:
            # The tabs' own first activation (of panel 1) arriving after a panel was
            # chosen in code: it must not take the focus back to panel 1.
            return
        if event.pane.id != "gates":  # a tab clicked before panels 2-8 are mounted
            await self.mount_panels()
        if event.pane.id in PANELS:
            self._draw_panel(event.pane.id)
            self.panel(event.pane.id).focus_list()
        deck_host(self).alerter.focus_changed()  # left the queue, or back at it

    @property
    def shows_queue(self) -> bool:
        """The decisions are on screen: this screen is on top, nothing over it, and
        shows panel 1 (the alerts ring unless the person is looking, tui/alerts.py)."""
        return self.app.screen is self and self.current_panel == "gates"

    def redraw_queue(self) -> None:
        """Draw the queue again (its "new" marks changed), once it shows a snapshot."""
        if self.is_mounted and self.snapshot is not None:
            self.panel("gates").tick(deck_host(self).ws.clock())

    def panel(self, name: str) -> Panel:
        """The panel ``name`` (a key of registry.PANEL_TITLES)."""
        return self.query_one(f"#{name}-panel", Panel)

    # --- what panels ask (messages, so no widget calls its screen) ------------------------

    @on(SelectionMoved)
    def _selection_moved(self) -> None:
        self.update_bindings()

    @on(OpenInbox)
    async def _open_inbox(self, message: OpenInbox) -> None:
        await self.open_inbox(message.key)

    @on(OpenDecision)
    async def _open_decision(self, message: OpenDecision) -> None:
        await self.open_decision(message.key)

    async def open_inbox(self, member_key: str) -> None:
        """Show the inbox of ``member_key`` (``team/name``)."""
        from teamdeck.tui.panels.inbox.panel import InboxPanel  # imported with panels 2-8

        await self.action_panel("inbox")
        self.query_one(InboxPanel).select_member(member_key)

    async def open_decision(self, key: str) -> None:
        """Show panel 1 with the decision ``key`` selected."""
        await self.action_panel("gates")
        self.panel("gates").select_key(key)

    @on(MessageMember)
    async def _message_member(self, message: MessageMember) -> None:
        """Write to a member, as the roster's ``m`` does."""
        await self.mount_panels()
        roster = self.panel("roster")
        if roster.select_key(message.key):
            roster.run_registered(registry.BY_ID["member-message"])

    @property
    def notice_line(self) -> NoticeLine:
        return self.query_one(NoticeLine)

    @property
    def confirm_bar(self) -> ConfirmBar:
        return self.query_one(ConfirmBar)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the confirm bar asks, the panel keys of this screen wait: the answer comes first.
        if self.is_mounted and self.confirm_bar.asking:
            return None
        return True

    async def action_back(self) -> None:
        """Close the filter, or go back from the inbox to the roster."""
        if self.panel(self.current_panel).close_filter():
            return
        if self.current_panel == "inbox":
            await self.action_panel("roster")


def main_screen(app: App[Any]) -> MainScreen:
    """The main screen of ``app`` (the bottom of its screen stack)."""
    screen = app.screen_stack[0]
    assert isinstance(screen, MainScreen)
    return screen
