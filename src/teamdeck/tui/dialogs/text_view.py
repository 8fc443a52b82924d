"""Reading a long text in full: a message, a plan, an event - sanitised, or raw with
every control character shown as an escape (``v`` switches; S7)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from teamdeck.tui.render import block, escaped


class TextScreen(ModalScreen[str | None]):
    """A scrollable view of one untrusted text. Dismisses with the key of an answer
    (see ``answers``), or None when closed."""

    BINDINGS = [
        Binding("escape,q", "close", "Close", id="text-close"),
        Binding("v", "toggle_raw", "View raw (escaped)", id="text-raw"),
    ]

    def __init__(
        self, title: Content, text: str, *, header: Content | None = None, answers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        """``answers``: (key, label) of the answers the text can be given from here (a
        decision read in full is approved or rejected without going back first)."""
        super().__init__()
        self.title_content = title
        self.text = text
        self.header = header
        self.raw = False
        for key, label in answers:
            self._bindings.bind(key, f"answer('{key}')", label)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog dialog--wide dialog--tall"):
            yield Static(self.title_content, classes="dialog--title")
            if self.header is not None:
                yield Static(self.header, classes="dialog--header")
            with VerticalScroll(id="text-scroll", classes="dialog--body"):
                yield Static(self._content(), id="text-body")
            yield Footer()

    def _content(self) -> Content:
        if self.raw:
            return Content(escaped(self.text))
        return Content(block(self.text))

    def on_mount(self) -> None:
        self.query_one("#text-scroll").focus()

    def action_toggle_raw(self) -> None:
        self.raw = not self.raw
        self.query_one("#text-body", Static).update(self._content())

    def action_close(self) -> None:
        self.dismiss(None)

    def action_answer(self, key: str) -> None:
        self.dismiss(key)
