"""The app's alerts (what they are: tui/alerts.py): given each snapshot drawn, ring the
terminal unless the person is looking, mark what is new in the queue, run
``notify.command``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.notifications import Notification, Notify

from teamdeck.tui.alerts import Alert, NewMarks, arrivals, terminal_alert
from teamdeck.tui.notify_command import NotifyCommand
from teamdeck.tui.render import cell
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

if TYPE_CHECKING:
    from textual.app import App

    from teamdeck.model.settings import NotifySettings
    from teamdeck.store.workspace import Workspace


class Alerter:
    """The alerts of one app.

    Args:
        app: the app (its terminal, its focus, its notices).
        ws: its workspace (the notify settings).
        queue_shown: whether the decisions are on screen, nothing over them.
        redraw_queue: draw the queue's marks again (they changed).
    """

    def __init__(
        self, app: App[Any], ws: Workspace, queue_shown: Callable[[], bool], redraw_queue: Callable[[], None]
    ) -> None:
        self.app = app
        self.ws = ws
        self.queue_shown = queue_shown
        self.marks = NewMarks(redraw_queue)
        self.command = NotifyCommand(lambda: _notify_settings(ws), self._report)
        self.sent: list[str] = []
        """Every terminal alert written, in order (tests; a few per session)."""

    @property
    def looking(self) -> bool:
        """The person is looking at the queue: the terminal has focus (as the terminal
        reports it) and the main screen shows the decisions, nothing over them."""
        return self.app.app_focus and self.queue_shown()

    def shown(self, before: WorkspaceSnapshot | None, after: WorkspaceSnapshot) -> None:
        """``after`` is drawn, ``before`` was (None: the first snapshot, the baseline)."""
        if before is None:
            return
        alerts = arrivals(before, after)
        if alerts:
            self.alert(alerts)

    def alert(self, alerts: list[Alert]) -> None:
        looking = self.looking
        self.marks.add({alert.key for alert in alerts if alert.decision}, looking=looking)
        settings, _problem = _notify_settings(self.ws)  # (a problem is a notice of the refresh already)
        if settings.bell and not looking:
            self.write(terminal_alert(alerts))
        if settings.command is not None:
            for alert in alerts:
                self.command.send(alert.data)

    def write(self, sequence: str) -> None:
        """Send ``sequence`` to the terminal (nowhere when headless: tests)."""
        self.sent.append(sequence)
        driver = self.app._driver  # Textual's own App.bell writes through it the same way
        if not self.app.is_headless and driver is not None:
            driver.write(sequence)
            driver.flush()

    def focus_changed(self) -> None:
        """The terminal's focus, the panel or the screen on top changed."""
        if self.looking:
            self.marks.looking()
        else:
            self.marks.left()

    def stop(self) -> None:
        self.command.stop()

    def _report(self, text: str) -> None:
        """A failure of ``notify.command``, as a warning notice. Posted from the command's
        thread, which never waits for the app: that thread finishes the run in progress
        after the person quits, and a failure then is dropped (``call_from_thread`` raised
        in the thread once the app's loop had closed)."""
        self.app.post_message(Notify(Notification(cell(text, 400), severity="warning", timeout=10, markup=False)))


def _notify_settings(ws: Workspace) -> tuple[NotifySettings, str | None]:
    """The workspace's notify settings, read when an alert is due (imported then: the
    settings' YAML reader and model are not needed for the first frame)."""
    from teamdeck.view.readers.notify_settings import notify_settings

    return notify_settings(ws)
