"""The footer: Textual's, with ``q`` (quit), ``?`` (help) and the palette key kept
together at the right edge, so they never scroll out of sight. The panel's keys flow
from the left and a narrow terminal (80 columns) cuts those, never these."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # not exported; the footer's key widget

ESSENTIAL = ("quit", "help")
"""Actions whose keys the footer always shows."""


class DeckFooter(Footer):
    """A :class:`Footer` whose essential keys sit at the right edge with the palette's."""

    DEFAULT_CSS = """
    DeckFooter HorizontalGroup.-essential {
        dock: right;
        width: auto;
        height: 1;
        FooterKey.-command-palette {
            dock: none;
        }
    }
    """

    def compose(self) -> ComposeResult:
        kept = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and (widget.action in ESSENTIAL or widget.has_class("-command-palette")):
                kept.append(widget)
            else:
                yield widget
        with HorizontalGroup(classes="-essential"):
            yield from kept
