"""Text inputs: the one setting every app of teamdeck applies to them."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Input, TextArea


def set_cursor_blink(root: Widget, blink: bool) -> None:
    """Make every text input under ``root`` blink its cursor or not (off for
    deterministic screenshots)."""
    for widget in root.query(Input).results():
        widget.cursor_blink = blink
    for area in root.query(TextArea).results():
        area.cursor_blink = blink
