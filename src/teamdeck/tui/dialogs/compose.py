"""Writing a message or a broadcast: a summary line and the text."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static, TextArea

from teamdeck.tui.host import deck_host
from teamdeck.tui.render import cell


@dataclass(frozen=True)
class Draft:
    """What the person wrote."""

    summary: str
    text: str


class ComposeScreen(ModalScreen[Draft | None]):
    """Dismisses with a :class:`Draft`, or None when cancelled. Both fields are
    required (the protocol refuses an empty summary)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="compose-cancel"),
        Binding("ctrl+s", "send", "Send", id="compose-send"),
    ]

    def __init__(self, title: Content, sender: str = "", *, other_sender: str = "") -> None:
        """``sender``: who the message is from, as the recipient will see it;
        ``other_sender``: how to send it from someone else instead (shown under the
        sender: the dialog always writes as it)."""
        super().__init__()
        self.title_content = title
        self.sender = sender
        self.other_sender = other_sender

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog dialog--wide"):
            yield Static(self.title_content, classes="dialog--title")
            if self.sender:
                how = ("\n" + cell(self.other_sender, 300), "$text-muted") if self.other_sender else ""
                yield Static(
                    Content.assemble(
                        "from ", (cell(self.sender, 64), "bold"), " (the team's lead: you write as it)", how
                    ),
                    id="sender",
                    classes="dialog--header",
                )
            yield Label("Summary (one line)", classes="dialog--label")
            yield Input(id="summary", placeholder="what this message is about")
            yield Label("Message (ctrl+s sends)", classes="dialog--label")
            yield TextArea(id="text", soft_wrap=True, show_line_numbers=False)
            yield Static("", id="problem", classes="dialog--problem")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Send", id="send", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        deck_host(self).apply_cursor_blink(self)
        self.query_one("#summary", Input).focus()

    @on(Input.Submitted, "#summary")
    def _next(self) -> None:
        self.query_one("#text", TextArea).focus()

    @on(Button.Pressed, "#send")
    def action_send(self) -> None:
        summary = self.query_one("#summary", Input).value.strip()
        text = self.query_one("#text", TextArea).text.strip()
        if not summary or not text:
            missing = "a summary" if not summary else "a message"
            self.query_one("#problem", Static).update(Content(f"Write {missing} first."))
            return
        self.dismiss(Draft(summary, text))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
