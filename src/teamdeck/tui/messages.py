"""Messages that travel across the whole app: the refresher's snapshots, the actions a
widget asks for, and what a panel asks of the main screen (instead of calling it)."""

from __future__ import annotations

from textual.message import Message

from teamdeck.live.actions import Action
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot


class SnapshotChanged(Message):
    """A new snapshot of the workspace is ready (posted by the refresh worker).

    Coalesced: when several arrive before the UI handles them, only the newest is
    drawn (each is complete, so nothing is lost by skipping the others).
    """

    def __init__(self, snapshot: WorkspaceSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot


class SelectionMoved(Message):
    """A panel's selection changed: the footer's keys may have changed."""


class OpenInbox(Message):
    """Show the inbox of the member ``key`` (``team/name``) in panel 3."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key


class OpenDecision(Message):
    """Show panel 1 with the decision ``key`` selected."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key


class MessageMember(Message):
    """Start writing to the member ``key`` (``team/name``), as the roster's ``m`` does."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key


class RunAction(Message):
    """Run ``action`` (built by the panels' actions, tui/panels/*/actions.py): the app hands it to
    its action runner (live/actions.py). Widgets post it instead of calling up into the
    app, and post it to the app itself (``self.app.post_message``) rather than letting it
    bubble: the five containers between a panel and the app took ~5 ms median (p90
    14-20 ms) to pass it on at a load of 10, against 0.5 ms posted straight to the app,
    and that time comes before the protocol call starts."""

    def __init__(self, action: Action) -> None:
        super().__init__()
        self.action = action


class LoadOlderEvents(Message):
    """Read older lines of every event log into the events view (the events panel at
    its top)."""
