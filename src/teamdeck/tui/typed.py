"""Typed access from a widget to the teamdeck app.

Textual types ``Widget.app`` as ``App[Any]``; this says once what it is in teamdeck,
instead of a ``type: ignore`` at every use. (A panel never reaches its screen: it posts
a message, tui/messages.py.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.widget import Widget

if TYPE_CHECKING:
    from teamdeck.tui.app import TeamdeckApp


def deck(widget: Widget) -> TeamdeckApp:
    """The running :class:`TeamdeckApp` (every widget of teamdeck lives in one)."""
    return cast("TeamdeckApp", widget.app)
