"""The workspace's ``notify:`` settings, for the TUI's alerts (which may not read the
store itself): read when an alert is about to go out, so a change of
``.teamdeck.yaml`` applies to the next one."""

from __future__ import annotations

from teamdeck.errors import TeamdeckError
from teamdeck.model.settings import NotifySettings
from teamdeck.store.settings import load_settings
from teamdeck.store.workspace import Workspace


def notify_settings(ws: Workspace) -> tuple[NotifySettings, str | None]:
    """The ``notify:`` settings and, when ``.teamdeck.yaml`` cannot be read, why (the
    defaults then: the bell on, no command)."""
    try:
        return load_settings(ws.root).notify, None
    except TeamdeckError as err:
        return NotifySettings(), str(err)
