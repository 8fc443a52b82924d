"""``n``: every notice so far, newest first, each with its time and severity (as k9s's
events view): the notice line shows one at a time and counts the others ("+2 more"),
and each goes when it times out, so this is where they can be read again."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.notifications import Notification
from textual.screen import ModalScreen
from textual.widgets import Static

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.notice_line import LINE_CHARS, Hint, notice_head

SEVERITY_WORDS = {"error": "error", "warning": "warning", "information": "info"}
"""How each severity reads in the list (a hint reads ``hint``: it reports nothing done)."""


class NoticesScreen(ModalScreen[None]):
    """The notices given, newest first (a copy taken when it opened)."""

    BINDINGS = [Binding("escape,q,n", "close", "Close", id="notices-close")]

    def __init__(self, notices: Sequence[Notification]) -> None:
        """``notices``: oldest first, as the app keeps them."""
        super().__init__()
        self.notices = tuple(notices)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog dialog--wide dialog--tall"):
            yield Static(
                Content.styled(f"Notices ({len(self.notices)}), newest first", "bold"), classes="dialog--title"
            )
            with VerticalScroll(id="notices-scroll", classes="dialog--body"):
                yield Static(notices_content(self.notices), id="notices-body")

    def on_mount(self) -> None:
        self.query_one("#notices-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)


def notices_content(notices: Sequence[Notification]) -> Content:
    """One line per notice, newest first: its time, its severity, its mark and title,
    its message (plain text, sanitised: a message can quote an agent's file)."""
    if not notices:
        return Content.styled("no notices yet", "$text-muted")
    lines = []
    for notice in reversed(notices):
        when = datetime.fromtimestamp(notice.raised_at).strftime("%H:%M:%S")
        severity = "hint" if isinstance(notice, Hint) else SEVERITY_WORDS.get(notice.severity, notice.severity)
        lines.append(
            Content.assemble(
                (f"{when}  ", "$text-muted"),
                (f"{severity:<8}", "bold"),
                notice_head(notice),
                cell(notice.message, LINE_CHARS),
            )
        )
    return Content("\n").join(lines)
