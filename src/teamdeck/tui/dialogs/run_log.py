"""A member's latest run, live: its record, events and the end of its output and errors,
read again twice a second while the dialog is open (the log is appended to by the run).
The files are read on a worker thread, never on the UI thread (run.yaml files parsed,
log tails read)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from teamdeck.errors import TeamdeckError
from teamdeck.tui.render import block, cell
from teamdeck.view.readers.runs import member_runs, run_events, run_output

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace

REFRESH_S = 0.5
TAIL_BYTES = 8000


class RunLogScreen(ModalScreen[None]):
    """The live tail of ``team/member``'s latest run (see the module)."""

    BINDINGS = [Binding("escape,q,l", "close", "Close", id="run-log-close")]

    def __init__(self, ws: Workspace, team: str, member: str) -> None:
        super().__init__()
        self.ws, self.team, self.member = ws, team, member
        self.shown = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog dialog--wide dialog--tall"):
            title = Content.assemble(
                ("Run log of ", "bold"), (cell(self.member, 64), "bold $accent"), f" (team {cell(self.team, 64)})"
            )
            yield Static(title, classes="dialog--title")
            yield Static(id="run-log-header", classes="dialog--header")
            with VerticalScroll(id="run-log-scroll", classes="dialog--body"):
                yield Static(id="run-log-body")
            yield Footer()

    def on_mount(self) -> None:
        self.query_one("#run-log-scroll").focus()
        self.refresh_log()
        self.set_interval(REFRESH_S, self.refresh_log)

    @work(thread=True, exclusive=True, group="run-log", exit_on_error=False, description="read the run log")
    def refresh_log(self) -> None:
        """Read the latest run again, and show it on the UI thread."""
        try:
            runs = member_runs(self.ws, self.team, self.member)
        except TeamdeckError as err:  # a run record that cannot be read: say which and why
            self.app.call_from_thread(self._show, f"could not read the runs: {err}", "")
            return
        run = runs.live or runs.last
        if run is None:
            header, text = "no run recorded for this member yet", ""
        else:
            state = "▶ running" if run.live else f"{run.outcome or run.state}"
            cost = f" · {run.cost_shown}" if run.cost_shown else ""
            header = f"{run.id} · {state} · {run.trigger} · started {run.startedAt or run.createdAt}{cost}"
            events = "\n".join(f"{event.get('at')} {event.get('type')}" for event in run_events(self.ws, run))
            tails = run_output(self.ws, run, TAIL_BYTES)
            text = "\n".join(
                [events, *(f"--- {name}\n{tail}" for name, tail in tails.items() if tail), run.error or ""]
            ).strip()
        self.app.call_from_thread(self._show, header, text)

    def _show(self, header: str, text: str) -> None:
        """Show what was read (nothing when it did not change, or the dialog is closed);
        scroll to the end when new output arrived and the reader was at the end."""
        if not self.is_attached or (text == self.shown and self.query_one("#run-log-header", Static).content):
            return
        scroll = self.query_one("#run-log-scroll", VerticalScroll)
        at_end = scroll.scroll_y >= scroll.max_scroll_y
        self.shown = text
        self.query_one("#run-log-header", Static).update(Content(cell(header, 300)))
        self.query_one("#run-log-body", Static).update(Content(block(text, 40000) or "(nothing written yet)"))
        if at_end:
            scroll.scroll_end(animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
