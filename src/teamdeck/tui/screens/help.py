"""``?``: the workspace shown, then every key, by panel (generated from tui/registry.py)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

import teamdeck.tui.registry as registry
from teamdeck.tui.render import cell


class HelpScreen(ModalScreen[None]):
    """The workspace's full path, then the keys, grouped by panel. The overview line
    names the workspace by its last part alone; here is where it is on disk (a demo's
    temporary copy, to look at or to point another shell's ``teamdeck`` at)."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help-close")]

    def __init__(self, workspace: str) -> None:
        super().__init__()
        self.workspace = workspace

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog dialog--wide dialog--tall"):
            yield Static(Content.styled("teamdeck keys", "bold"), classes="dialog--title")
            yield Static(
                Content.assemble("workspace ", (cell(self.workspace, 500), "bold")),
                id="help-workspace",
                classes="dialog--header",
            )
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
