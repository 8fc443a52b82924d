"""``?``: every key, by panel (generated from tui/registry.py)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

import teamdeck.tui.registry as registry


class HelpScreen(ModalScreen[None]):
    """The keys, grouped by panel."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help-close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog dialog--wide dialog--tall"):
            yield Static(Content.styled("teamdeck keys", "bold"), classes="dialog--title")
            with VerticalScroll(classes="dialog--body"):
                yield Static(help_content())

    def action_close(self) -> None:
        self.dismiss(None)


def help_content() -> Content:
    """Every key of tui/registry.py by section: the key, two spaces at least, what it does."""
    sections = registry.help_sections()
    width = max(len(key) for _group, keys in sections for key, _what in keys) + 2
    parts: list[str | tuple[str, str]] = []
    for group, keys in sections:
        parts.append((f"{group}\n", "bold $accent"))
        for key, what in keys:
            parts += [(f"  {key:<{width}}", "bold"), f"{what}\n"]
        parts.append("\n")
    parts.append(("--read-only disables every action (shown greyed in the footer).", "$text-muted"))
    return Content.assemble(*parts)
