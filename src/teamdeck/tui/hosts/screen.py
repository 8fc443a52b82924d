"""The hosts screen: each host's link and overview, one decision queue over every host,
their teams; ``a``/``r`` answer the selected decision on its own host, through the
confirm bar, which names the host."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from teamdeck.remote.link import Link
from teamdeck.tui.hosts.lists import HostDecision, HostDecisionList, HostTeamList, host_line, total_line
from teamdeck.tui.render import block, cell, safe
from teamdeck.tui.widgets.confirm_bar import ConfirmBar, Confirmed, ConfirmRequest, NoteRule, ask_confirm

Answer = Callable[[HostDecision, str, str | None], None]
"""Sends an answer (the decision, the answer's word, the note) to the decision's host."""


class HostsScreen(Screen[None]):
    """Every host at a glance (see the module)."""

    BINDINGS = [
        Binding("a", "answer('approve')", "Approve", id="approve"),
        Binding("r", "answer('reject')", "Reject", id="reject"),
        Binding("tab", "app.focus_next", "Next list", show=False),
    ]

    def __init__(self, links: list[Link], answer: Answer) -> None:
        super().__init__(id="hosts-screen")
        self.links = links
        self._answer = answer
        self.queue: list[HostDecision] = []

    def compose(self) -> ComposeResult:
        yield ConfirmBar(id="confirm-bar")
        yield Static(id="host-lines")
        yield Label("Decisions waiting, every host, oldest first", classes="hosts--title")
        yield HostDecisionList(empty="no decisions waiting on any host", id="host-queue")
        yield Label("Teams", classes="hosts--title")
        yield HostTeamList(empty="no teams", id="host-teams")
        yield Footer()

    def on_mount(self) -> None:
        self.redraw()
        self.query_one(HostDecisionList).focus()

    def redraw(self) -> None:
        """Draw every host's newest state and link."""
        lines = self.query_one("#host-lines", Static)
        lines.update(Content("\n".join([total_line(self.links), *(host_line(link) for link in self.links)])))
        self.queue = self.query_one(HostDecisionList).show(self.links)
        self.query_one(HostTeamList).show(self.links)

    def selected(self) -> HostDecision | None:
        """The decision under the queue's cursor."""
        key = self.query_one(HostDecisionList).current_key
        return next((item for item in self.queue if item.row_key == key), None)

    def action_answer(self, word: str) -> None:
        """Answer the selected decision with its ``word`` answer, on its host, once
        confirmed; refused at once (with why) when its host cannot take it now."""
        item = self.selected()
        if item is None:
            self.notify("Select a decision first", severity="warning")
            return
        link, host = item.link, cell(item.link.host.name, 16)
        if link.status != "live":
            self.notify(
                f"{host} is {link.status} since {link.since:%H:%M:%S}: nothing was sent",
                severity="warning",
                markup=False,
            )
            return
        if link.host.read_only or link.server.get("readOnly"):
            self.notify(f"{host} is read-only: nothing was sent", severity="warning", markup=False)
            return
        answers = item.gate.get("answers") or {}
        answer = answers.get(word) or {}
        action, label = str(answer.get("action") or word), cell(str(answer.get("label") or word), 20)
        asked = answer.get("note")
        note: NoteRule = asked if asked in ("none", "optional", "required") else "optional"
        what = cell(str(item.gate.get("label") or "decision"), 20)
        questions = "\n".join(f"  {question}" for question in item.gate.get("questions") or [])
        body = safe(block(f"{item.gate.get('key')}\n{item.gate.get('title') or ''}\n{questions}".rstrip(), 2_000))
        ask_confirm(
            self,
            ConfirmRequest(
                title=Content(f"{label} {what} on {host}?"),
                body=body,
                confirm=label,
                note=note,
                danger=word == "reject",
            ),
            lambda confirmed: self._confirmed(item, action, confirmed),
        )

    def _confirmed(self, item: HostDecision, action: str, confirmed: Confirmed) -> None:
        self._answer(item, action, confirmed.note)

    @property
    def confirm_bar(self) -> ConfirmBar:
        return self.query_one(ConfirmBar)
