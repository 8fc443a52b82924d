"""The app over several hosts: a link to each (remote/link.py), kept up on threads of
their own; every change of any link redraws the hosts screen; each action (an answer, a
message, a shutdown request) is a request to the host that owns the item, on a worker,
its reply a notice. Nothing is shown optimistically: an answered decision leaves the
queue when its host's next state says so."""

from __future__ import annotations

from collections.abc import Mapping

from textual import on, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget

from teamdeck.model.hosts import Host
from teamdeck.remote.link import Link
from teamdeck.resources import data_dir
from teamdeck.tui.hosts.screen import HostsScreen
from teamdeck.tui.inputs import set_cursor_blink
from teamdeck.tui.render import NOTICE_CHARS, cell


class HostsChanged(Message):
    """A link has a new state or status (posted from its thread)."""


class HostsApp(App[None]):
    """teamdeck over several hosts (see the module)."""

    TITLE = "teamdeck"
    CSS_PATH = [data_dir("styles") / "app.tcss", data_dir("styles") / "hosts.tcss"]
    BINDINGS = [Binding("q", "quit", "Quit", id="quit")]

    def __init__(self, hosts: list[Host], *, cursor_blink: bool = True) -> None:
        super().__init__()
        self.cursor_blink = cursor_blink
        self.links = [Link(host, on_change=self._link_changed) for host in hosts]
        """One link per host, in the order given (their lines and rows keep it)."""
        self._redraw_waiting = False

    def on_mount(self) -> None:
        self.push_screen(HostsScreen(self.links, self.ask))
        for link in self.links:
            link.start()

    def on_unmount(self) -> None:
        for link in self.links:
            link.stop()

    @property
    def hosts_screen(self) -> HostsScreen:
        screen = self.screen_stack[1] if len(self.screen_stack) > 1 else self.screen
        assert isinstance(screen, HostsScreen)
        return screen

    def _link_changed(self, link: Link) -> None:
        """From a link's thread: ask for one redraw (changes that come meanwhile share it)."""
        if not self._redraw_waiting:
            self._redraw_waiting = True
            self.post_message(HostsChanged())

    @on(HostsChanged)
    def _redraw(self) -> None:
        self._redraw_waiting = False
        if len(self.screen_stack) > 1:
            self.hosts_screen.redraw()

    def apply_cursor_blink(self, root: Widget) -> None:
        """The dialogs' text inputs blink (tui/host.py's ``DeckHost``, which they ask)."""
        set_cursor_blink(root, self.cursor_blink)

    def ask(self, link: Link, op: str, args: Mapping[str, object]) -> None:
        """Ask ``link``'s host for ``op`` (on a worker: the request waits for its reply)."""
        self._ask(link, op, args)

    @work(thread=True, group="requests", exit_on_error=False)
    def _ask(self, link: Link, op: str, args: Mapping[str, object]) -> None:
        reply = link.ask(op, dict(args))
        text = cell(f"{link.host.name}: {reply.text}", NOTICE_CHARS)  # the host's words: sanitised, never markup
        if reply.ok:
            severity, title = "information", "Done"
        elif reply.unknown:
            severity, title = "warning", "Unknown: check"
        else:
            severity, title = "error", "Refused"
        self.call_from_thread(self.notify, text, title=title, severity=severity, markup=False)
