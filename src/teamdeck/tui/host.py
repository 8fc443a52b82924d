"""What a widget may ask of the app that hosts it: :class:`DeckHost`, and
:func:`deck_host`, the typed way to reach it from a widget.

Textual types ``Widget.app`` as ``App[Any]``. The panels, screens and dialogs need a
few things of teamdeck's app, named here once, so they import this small protocol
instead of the app (tui/app.py), which imports them: the app satisfies it, and no
widget depends on the class that composes it. (A panel never reaches its screen
either: it posts a message, tui/messages.py.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from textual.widget import Widget

    from teamdeck.store.workspace import Workspace
    from teamdeck.tui.alerter import Alerter
    from teamdeck.view.snapshot.workspace import WorkspaceSnapshot


class DeckHost(Protocol):
    """What teamdeck's widgets use of the app (tui/app.py's ``TeamdeckApp``)."""

    @property
    def ws(self) -> Workspace:
        """The workspace shown (its clock is the panels' now)."""

    @property
    def read_only(self) -> bool:
        """Writes are off: every action key is greyed."""

    @property
    def snapshot(self) -> WorkspaceSnapshot | None:
        """The snapshot on screen (None until the first one is read)."""

    @property
    def app_focus(self) -> bool:
        """The terminal has the focus (Textual's ``App.app_focus``)."""

    @property
    def alerter(self) -> Alerter:
        """The alerts: the queue's "new" marks, and what the person is looking at."""

    def apply_cursor_blink(self, root: Widget) -> None:
        """Apply the cursor-blink setting to every text input under ``root``."""

    def refresh_notices(self) -> None:
        """Draw the notices up now on the notice line."""

    def type_into(self, target: Widget) -> None:
        """The printable keys typed since the key that opened ``target`` are ``target``'s
        (``/`` then a word in one read of the terminal: the letters filter, they do not
        run the list's keys)."""


def deck_host(widget: Widget) -> DeckHost:
    """The app ``widget`` runs in (every widget of teamdeck lives in a ``TeamdeckApp``)."""
    return cast("DeckHost", widget.app)
