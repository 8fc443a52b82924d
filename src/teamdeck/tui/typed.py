"""Typed access from a widget to the teamdeck app and its main screen.

Textual types ``Widget.app`` as ``App[Any]`` and ``Widget.screen`` as ``Screen``; these two
functions say once what they are in teamdeck, instead of a ``type: ignore`` at every use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.widget import Widget

if TYPE_CHECKING:
    from teamdeck.tui.app import TeamdeckApp
    from teamdeck.tui.screens.main import MainScreen


def deck(widget: Widget) -> TeamdeckApp:
    """The running :class:`TeamdeckApp` (every widget of teamdeck lives in one)."""
    return cast("TeamdeckApp", widget.app)


def main_screen(widget: Widget) -> MainScreen:
    """The :class:`MainScreen` a panel is mounted on (panels live nowhere else)."""
    return cast("MainScreen", widget.screen)
