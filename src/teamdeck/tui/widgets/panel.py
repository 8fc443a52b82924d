"""The base of the eight panels: what the main screen, the palette and the registry may
ask of any of them, typed once (no reaching into a panel by name and ``getattr``).

A panel never calls its screen: it posts a message (tui/messages.py) and the main
screen acts on it, so the widgets do not import the screen that composes them.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import ClassVar

from textual import on
from textual.containers import Vertical
from textual.widgets import Input

from teamdeck.tui.host import deck_host
from teamdeck.tui.keys import Action
from teamdeck.tui.messages import SelectionMoved
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot


class Panel(Vertical):
    """A panel: a list of things (:attr:`LIST`) with the selected one's details; its keys
    come from its package's rows (tui/panels/*/__init__.py)."""

    LIST: ClassVar[str] = ""
    """The selector of the panel's list."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.snapshot: WorkspaceSnapshot | None = None

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        """Draw ``snapshot``."""
        raise NotImplementedError

    def tick(self, now: datetime) -> None:
        """Age what the panel shows to ``now`` (the clock's tick, once a second): only
        the age cells, from the snapshot it shows - nothing is read again. A panel
        without ages does nothing."""

    @functools.cached_property
    def list(self) -> LineList:
        """The panel's list (composed once; looked up once: the footer's checks ask
        for it on every change)."""
        return self.query_one(self.LIST, LineList)

    def focus_list(self) -> None:
        self.list.focus()

    def select_key(self, key: str) -> bool:
        """Select the row ``key`` of the list (False: there is none)."""
        return self.list.select_key(key)

    def action_filter(self) -> None:
        """``/``: a line above the list; what is typed keeps the rows that contain it."""
        found = self.query(f"#{self.id}-filter")
        if found:
            deck_host(self).type_into(found.first(Input))
            found.first(Input).focus()
            return
        line = Input(placeholder="filter: any text (enter: back to the list, esc: clear)", id=f"{self.id}-filter")
        line.add_class("panel-filter")
        deck_host(self).type_into(line)  # the keys typed since / are the filter's
        self.mount(line, before=self.list)
        line.focus()

    @on(Input.Changed, ".panel-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.list.set_filter(event.value)
        self.rows_filtered()
        self.selection_moved()

    @on(Input.Submitted, ".panel-filter")
    def _filter_done(self) -> None:
        self.list.focus()

    def close_filter(self) -> bool:
        """Clear and remove the filter line; False when there was none."""
        found = self.query(f"#{self.id}-filter")
        if not found:
            return False
        found.remove()
        self.list.set_filter("")
        self.rows_filtered()
        self.list.focus()
        return True

    def rows_filtered(self) -> None:
        """The filter changed which rows the list shows: a panel whose title counts
        them (the inbox's) counts them again. Nothing by default."""

    def why_disabled(self, action: str) -> str:
        """Why the key of ``action`` is greyed now (its ``check_action`` says None), in
        words for the person who pressed it anyway."""
        app = deck_host(self)
        if app.read_only and app.snapshot is not None:
            return f"writes are off (read-only: {app.snapshot.read_only_reason or 'read-only mode'})"
        if self.list.current_key is None:
            if self.list.filter_text and self.list.all_rows and not self.list.rows:
                return f"nothing is selected: the filter “{cell(self.list.filter_text, 60)}” hides every row"
            return "nothing is selected"
        return "not possible for the selected item now"

    def run_registered(self, action: Action) -> None:
        """Run ``action`` (of this panel) on what is selected, as its key does."""
        getattr(self, f"action_{action.name}")(*action.parameters)

    def selection_moved(self) -> None:
        """Tell the screen the selection changed (the footer's keys may change with it)."""
        self.post_message(SelectionMoved())
