"""The main screen: the overview line, seven panels in tabs, the footer.

Panels: 1 gates (decisions waiting), 2 roster, 3 inbox of the selected member,
4 tasks, 5 events, 6 plans, 7 issues; the confirm bar docked above the footer. ``tab``/``shift+tab`` and ``1``-``7`` move between them; the footer
shows the keys of the panel that has the focus.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import TabbedContent, TabPane

from teamdeck.tui import registry
from teamdeck.tui.messages import MessageMember, OpenDecision, OpenInbox, SelectionMoved
from teamdeck.tui.typed import deck
from teamdeck.tui.widgets.confirm_bar import AskConfirm, ConfirmBar
from teamdeck.tui.widgets.deck_footer import DeckFooter
from teamdeck.tui.widgets.events_panel import EventsPanel
from teamdeck.tui.widgets.gates_panel import GatesPanel
from teamdeck.tui.widgets.inbox_panel import InboxPanel
from teamdeck.tui.widgets.issues_panel import IssuesPanel
from teamdeck.tui.widgets.overview_line import OverviewLine
from teamdeck.tui.widgets.panel import Panel
from teamdeck.tui.widgets.plans_panel import PlansPanel
from teamdeck.tui.widgets.roster_panel import RosterPanel
from teamdeck.tui.widgets.tasks_panel import TasksPanel
from teamdeck.view.snapshot import WorkspaceSnapshot

PANELS = tuple(registry.PANEL_TITLES)
TITLES = registry.PANEL_TITLES


class MainScreen(Screen[None]):
    """Everything at a glance; each panel owns its keys and actions."""

    BINDINGS = registry.bindings("main")

    def compose(self) -> ComposeResult:
        yield OverviewLine(id="overview")
        with TabbedContent(initial="gates", id="panels"):
            with TabPane(TITLES["gates"], id="gates"):
                yield GatesPanel(id="gates-panel")
            with TabPane(TITLES["roster"], id="roster"):
                yield RosterPanel(id="roster-panel")
            with TabPane(TITLES["inbox"], id="inbox"):
                yield InboxPanel(id="inbox-panel")
            with TabPane(TITLES["tasks"], id="tasks"):
                yield TasksPanel(id="tasks-panel")
            with TabPane(TITLES["events"], id="events"):
                yield EventsPanel(id="events-panel")
            with TabPane(TITLES["plans"], id="plans"):
                yield PlansPanel(id="plans-panel")
            with TabPane(TITLES["issues"], id="issues"):
                yield IssuesPanel(id="issues-panel")
        yield ConfirmBar(id="confirm-bar")
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
        undone by that first activation; tests wait for it)."""

    def on_mount(self) -> None:
        self._ready = True
        self.query_one(GatesPanel).focus_list()
        if self._waiting is not None:
            self.show(self._waiting)

    # --- drawing ------------------------------------------------------------------------

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        """Draw ``snapshot`` in every panel (once the panels exist)."""
        if not self._ready:
            self._waiting = snapshot
            return
        self._waiting = None
        self.snapshot = snapshot
        self.query_one(OverviewLine).show(snapshot, deck(self).ws.clock())
        self._draw_panel(self.current_panel)
        self.update_bindings()

    def update_bindings(self) -> None:
        """Redraw the footer's keys, but only when one of the visible panel's actions
        became enabled or disabled: the footer rebuilds its widgets on every refresh,
        and doing that on each change churns the garbage collector."""
        panel = self.panel(self.current_panel)
        state = (
            self.current_panel,
            tuple(panel.check_action(action.name, ()) for action in registry.scope_actions(self.current_panel)),
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

    def action_panel(self, name: str) -> None:
        """Show panel ``name`` and focus its list."""
        tabs = self.query_one(TabbedContent)
        tabs.active = name
        self._draw_panel(name)
        self.panel(name).focus_list()

    def action_next_panel(self, step: int) -> None:
        index = PANELS.index(self.current_panel) if self.current_panel in PANELS else 0
        self.action_panel(PANELS[(index + step) % len(PANELS)])

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.tabs_ready = True
        if event.pane.id in PANELS:
            self._draw_panel(event.pane.id)
            self.panel(event.pane.id).focus_list()

    def panel(self, name: str) -> Panel:
        """The panel ``name`` (a key of registry.PANEL_TITLES)."""
        return self.query_one(f"#{name}-panel", Panel)

    # --- what panels ask (messages, so no widget calls its screen) ------------------------

    @on(SelectionMoved)
    def _selection_moved(self) -> None:
        self.update_bindings()

    @on(OpenInbox)
    def _open_inbox(self, message: OpenInbox) -> None:
        self.open_inbox(message.key)

    @on(OpenDecision)
    def _open_decision(self, message: OpenDecision) -> None:
        self.open_decision(message.key)

    def open_inbox(self, member_key: str) -> None:
        """Show the inbox of ``member_key`` (``team/name``)."""
        self.action_panel("inbox")
        self.query_one(InboxPanel).select_member(member_key)

    def open_decision(self, key: str) -> None:
        """Show panel 1 with the decision ``key`` selected."""
        self.action_panel("gates")
        self.panel("gates").select_key(key)

    @on(MessageMember)
    def _message_member(self, message: MessageMember) -> None:
        """Write to a member, as the roster's ``m`` does."""
        roster = self.panel("roster")
        if roster.select_key(message.key):
            roster.run_registered(registry.BY_ID["member-message"])

    @on(AskConfirm)
    def _ask(self, message: AskConfirm) -> None:
        self.confirm_bar.ask(message.request, message.on_confirm)

    @property
    def confirm_bar(self) -> ConfirmBar:
        return self.query_one(ConfirmBar)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the confirm bar asks, the panel keys of this screen wait: the answer comes first.
        if self.is_mounted and self.confirm_bar.asking:
            return None
        return True

    def action_back(self) -> None:
        """Close the filter, or go back from the inbox to the roster."""
        if self.current_panel == "events" and self.query_one(EventsPanel).close_filter():
            return
        if self.current_panel == "inbox":
            self.action_panel("roster")
