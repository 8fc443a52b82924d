"""Messages that travel across the whole app."""

from __future__ import annotations

from textual.message import Message

from teamdeck.view.snapshot import WorkspaceSnapshot


class SnapshotChanged(Message):
    """A new snapshot of the workspace is ready (posted by the refresh worker).

    Coalesced: when several arrive before the UI handles them, only the newest is
    drawn (each is complete, so nothing is lost by skipping the others).
    """

    def __init__(self, snapshot: WorkspaceSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot
