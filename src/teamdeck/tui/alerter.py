"""The app's alerts (what they are: tui/alerts.py): given each snapshot drawn, ring the
terminal unless the person is looking, mark what is new in the queue, run
``notify.command``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.notifications import Notification, Notify

from teamdeck.tui.alerts import Alert, NewMarks, arrivals, terminal_alert
from teamdeck.tui.notify_command import NotifyCommand
from teamdeck.tui.render import cell
from teamdeck.view.snapshot import WorkspaceSnapshot

if TYPE_CHECKING:
    from teamdeck.model.settings import NotifySettings
    from teamdeck.store.workspace import Workspace
    from teamdeck.tui.app import TeamdeckApp


class Alerter:
    """The alerts of one app."""

    def __init__(self, app: TeamdeckApp) -> None:
        self.app = app
        self.marks = NewMarks(self._redraw_marks)
        self.command = NotifyCommand(lambda: _notify_settings(app.ws), self._report)
        self.sent: list[str] = []
        """Every terminal alert written, in order (tests; a few per session)."""

    @property
    def looking(self) -> bool:
        """The person is looking at the queue: the terminal has focus (as the terminal
        reports it) and the main screen shows the decisions, nothing over them."""
        app = self.app
        return app.app_focus and app.screen is app.main and app.main.current_panel == "gates"

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
        settings, _problem = _notify_settings(self.app.ws)  # (a problem is a notice of the refresh already)
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

    def _redraw_marks(self) -> None:
        main = self.app.main
        if main.is_mounted and main.snapshot is not None:
            main.panel("gates").tick(self.app.ws.clock())

    def _report(self, text: str) -> None:
        """A failure of ``notify.command``, as a warning notice. Posted from the command's
        thread, which never waits for the app: that thread finishes the run in progress
        after the person quits, and a failure then is dropped (``call_from_thread`` raised
        in the thread once the app's loop had closed)."""
        self.app.post_message(Notify(Notification(cell(text, 400), severity="warning", timeout=10, markup=False)))


def _notify_settings(ws: Workspace) -> tuple[NotifySettings, str | None]:
    """The workspace's notify settings, read when an alert is due (imported then: the
    settings' YAML reader and model are not needed for the first frame)."""
    from teamdeck.view.notify_settings import notify_settings

    return notify_settings(ws)
