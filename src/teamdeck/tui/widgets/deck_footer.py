"""The footer: Textual's, with ``q`` (quit), ``?`` (help) and the palette key kept
together at the right edge, so they never scroll out of sight. The panel's keys flow
from the left and a narrow terminal (80 columns) cuts those, never these.

It is built again only when the keys it shows changed: Textual's footer rebuilds all
its widgets on every change of focus or of the bindings (a mount, styles and a layout
of the screen each time), and opening and closing the confirm bar alone asked for four
such rebuilds, two of them with the same keys (measured on the approve key)."""

from __future__ import annotations

from collections.abc import Hashable

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.screen import Screen
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

    _shown: Hashable = None
    """What the keys of the last build were (:meth:`_keys`)."""

    def bindings_changed(self, screen: Screen) -> None:
        # Footer.bindings_changed, but the rebuild is skipped when the keys are the same.
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.call_after_refresh(self._rebuild_if_changed)

    async def _rebuild_if_changed(self) -> None:
        keys = self._keys()
        if keys != self._shown:
            await self.recompose()

    def _keys(self) -> Hashable:
        """Everything of the screen's active bindings that the footer draws."""
        return tuple(
            (binding.key, binding.action, binding.description, binding.show, binding.group, enabled, tooltip)
            for _, binding, enabled, tooltip in self.screen.active_bindings.values()
        )

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._keys()
        kept = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and (widget.action in ESSENTIAL or widget.has_class("-command-palette")):
                kept.append(widget)
            else:
                yield widget
        with HorizontalGroup(classes="-essential"):
            yield from kept
