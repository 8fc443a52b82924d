"""The notice line: the app's notices (an action done, a file that could not be read, an
error) on one line of their own, below the overview, instead of Textual's toasts.

Toasts float over the bottom right of the screen, which is where every panel shows the
selected item's detail and where the confirm bar asks for a note: under an active team
they covered the next gate's questions and the note being typed, for 5-10 s after
every action. The line takes its own row while a notice is up (the panels give it up),
so it never covers what the person reads or types.

One notice is shown at a time: the newest of the most severe (an error before a
warning before an information), with how many others are up; each goes when its
timeout ends, as a toast would. A :class:`Hint` (how to do something, such as the key
that quits) is information that reports nothing done: it has no success tick.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content
from textual.notifications import Notification
from textual.timer import Timer
from textual.widgets import Static

from teamdeck.tui.host import deck_host
from teamdeck.tui.render import cell

SEVERITY_ORDER = {"error": 0, "warning": 1, "information": 2}
STYLES = {"error": "bold $text-error", "warning": "bold $text-warning", "information": "$text-success"}
MARKS = {"error": "✖", "warning": "!", "information": "✓"}
HINT_STYLE = "bold $text-primary"
LINE_CHARS = 400


class Hint(Notification):
    """A notice that tells the person how to do something (the key that quits, after a
    Ctrl+C that does not): information, shown without the tick that says an action
    was done, as it reports none. Its message is plain text, never markup."""


class NoticeLine(Static):
    """One line: the notice that matters most now (hidden when there is none)."""

    DEFAULT_CSS = """
    NoticeLine {
        height: 1;
        padding: 0 1;
        background: $panel;
        text-wrap: nowrap;
        text-overflow: ellipsis;
        display: none;
    }
    NoticeLine.-shown { display: block; }
    """

    def __init__(self, *, history_key: str = "", id: str | None = None) -> None:
        """``history_key``: the key that lists every notice (named after the count of
        the others; ``""``: not named)."""
        super().__init__(id=id)
        self.history_key = history_key
        self.shown: Notification | None = None
        """The notice on the line (None: hidden)."""
        self._expiry: Timer | None = None

    def show(self, notices: Iterable[Notification]) -> None:
        """Show the notice that matters most of ``notices`` (the ones up now, expired
        ones left out) and wake up when it times out."""
        live = [notice for notice in notices if not notice.has_expired]
        if self._expiry is not None:
            self._expiry.stop()
            self._expiry = None
        if not live:
            self.shown = None
            self.set_class(False, "-shown")
            return
        first = min(live, key=lambda notice: (SEVERITY_ORDER.get(notice.severity, 2), -notice.raised_at))
        self.shown = first
        self.update(notice_text(first, len(live) - 1, self.history_key), layout=False)
        self.set_class(True, "-shown")
        self._expiry = self.set_timer(max(0.05, min(notice.time_left for notice in live)), self._expired)

    def _expired(self) -> None:
        self._expiry = None
        deck_host(self).refresh_notices()

    @property
    def plain(self) -> str:
        """The line's text, as shown."""
        return str(self.content) if self.shown is not None else ""


def notice_text(notice: Notification, others: int, history_key: str = "") -> Content:
    """``✓ gate g1 approved (+2 more, n lists them)``: the mark and title styled by
    severity (a hint: no mark), the message as plain text (never markup), one line;
    the count of the others names ``history_key``, which shows them."""
    head = notice_head(notice)
    how = f", {history_key} lists them" if history_key else ""
    more = f"  (+{others} more{how})" if others else ""
    return Content.assemble(head, cell(notice.message, LINE_CHARS), (more, "$text-muted"))


def notice_head(notice: Notification) -> Content:
    """The mark and title of ``notice``, styled by its severity (a hint: no mark)."""
    hint = isinstance(notice, Hint)
    style = HINT_STYLE if hint else STYLES.get(notice.severity, "")
    mark = "" if hint else f"{MARKS.get(notice.severity, '')} "
    return Content.styled(mark + (f"{cell(notice.title, 80)}: " if notice.title else ""), style)
