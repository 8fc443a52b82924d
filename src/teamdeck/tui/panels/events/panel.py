"""Panel 5: the live tail of every task's events and every team's messages.jsonl,
filterable with ``/``; ``o`` loads older lines; ``enter`` shows a whole record."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Input, Static

from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.host import deck_host
from teamdeck.tui.messages import LoadOlderEvents
from teamdeck.tui.panels.events import KEYS
from teamdeck.tui.panels.events.event_list import EventList
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.snapshot.events import EventRow, pretty_record
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot


class EventsPanel(Panel):
    """The merged event tail with its filter."""

    LIST = "#event-list"
    BINDINGS = KEYS.bindings()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.query_text = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="events-title")
        yield EventList(empty="no events yet", id="event-list")
        yield Input(placeholder="filter: any text (esc closes)", id="events-query", classes="-hidden")

    def on_mount(self) -> None:
        deck_host(self).apply_cursor_blink(self)

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        self.snapshot = snapshot
        self._draw()

    def _draw(self) -> None:
        snapshot = self.snapshot
        if snapshot is None:
            return
        events = self.query_one(EventList)
        events.show(snapshot.events, self.query_text)
        loaded = "all loaded" if snapshot.events_complete else "older ones not loaded: press o"
        shown = (
            f"{len(events.rows)} of {len(snapshot.events)} matching “{cell(self.query_text, 60)}”"
            if self.query_text
            else f"{len(snapshot.events)} events"
        )
        self.query_one("#events-title", Static).update(Content.styled(f"{shown} ({loaded})", "$text-muted"))

    @property
    def selected(self) -> EventRow | None:
        key = self.query_one(EventList).current_key
        if self.snapshot is None or key is None:
            return None
        return next((row for row in reversed(self.snapshot.events) if row.id == key), None)

    def action_filter(self) -> None:
        query = self.query_one("#events-query", Input)
        query.remove_class("-hidden")
        deck_host(self).type_into(query)  # the keys typed since / are the query's
        query.focus()

    @on(Input.Changed, "#events-query")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.query_text = event.value.strip()
        self._draw()

    @on(Input.Submitted, "#events-query")
    def _filter_done(self) -> None:
        self.focus_list()

    def close_filter(self) -> bool:
        """Clear and hide the filter; False when it was not open."""
        query = self.query_one("#events-query", Input)
        if query.has_class("-hidden"):
            return False
        query.value = ""
        query.add_class("-hidden")
        self.query_text = ""
        self._draw()
        self.focus_list()
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "older" and (self.snapshot is None or self.snapshot.events_complete):
            return None
        if action == "read" and self.selected is None:
            return None
        return True

    def action_older(self) -> None:
        self.post_message(LoadOlderEvents())

    @on(LineList.Chosen, "#event-list")
    def action_read(self) -> None:
        row = self.selected
        if row is not None:
            title = Content(f"{cell(row.kind, 64)} in {cell(row.source, 64)} at {cell(row.ts, 40)}")
            self.app.push_screen(TextScreen(title, pretty_record(row.detail), header=Content(cell(row.path, 200))))
