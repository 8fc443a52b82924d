"""The confirmation dialog every destructive or outward action passes through
(approve, reject, shutdown, deactivate): what will happen, an optional or required
note, confirm or cancel."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from teamdeck.tui.typed import deck

NoteRule = Literal["none", "optional", "required"]


@dataclass(frozen=True)
class Confirmed:
    """The person confirmed; ``note`` is what they typed (None when empty or not asked)."""

    note: str | None


class ConfirmScreen(ModalScreen[Confirmed | None]):
    """Ask before acting. Dismisses with :class:`Confirmed` or None (cancelled)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="confirm-cancel")]

    def __init__(
        self,
        title: Content,
        body: Content,
        *,
        confirm: str = "Confirm",
        note: NoteRule = "none",
        note_label: str = "Note",
        danger: bool = False,
    ) -> None:
        super().__init__()
        self.title_content = title
        self.body = body
        self.confirm_label = confirm
        self.note_rule = note
        self.note_label = note_label
        self.danger = danger

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static(self.title_content, classes="dialog--title")
            with VerticalScroll(classes="dialog--body"):
                yield Static(self.body)
            if self.note_rule != "none":
                required = " (required)" if self.note_rule == "required" else " (optional)"
                yield Label(self.note_label + required, classes="dialog--label")
                yield Input(id="note", placeholder=self.note_label.lower())
            yield Static("", id="problem", classes="dialog--problem")
            with Horizontal(classes="dialog--buttons"):
                yield Button(self.confirm_label, id="confirm", variant="error" if self.danger else "primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        deck(self).apply_cursor_blink(self)
        if self.note_rule != "none":
            self.query_one("#note", Input).focus()
        else:
            self.query_one("#confirm", Button).focus()

    @on(Button.Pressed, "#confirm")
    @on(Input.Submitted, "#note")
    def _confirm(self) -> None:
        note = self.query_one("#note", Input).value.strip() if self.note_rule != "none" else ""
        if self.note_rule == "required" and not note:
            self.query_one("#problem", Static).update(Content(f"{self.note_label} is required."))
            self.query_one("#note", Input).focus()
            return
        self.dismiss(Confirmed(note or None))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
