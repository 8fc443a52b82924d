"""The hosts screen: each host's link and overview, one decision queue over every host,
their members and their tasks. On the queue, ``a``/``r`` answer the selected decision;
on the members, ``enter`` reads the member's inbox, ``m`` messages it and ``s`` asks it
to shut down: each on the item's own host, and what asks first (the confirm bar, the
message dialog) names the host."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Footer, Label, Static

from teamdeck.remote.link import Answer, Link
from teamdeck.remote.merged import HostDecision, HostMember
from teamdeck.tui.dialogs.compose import ComposeScreen, Draft
from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.hosts.lists import HostDecisionList, HostMemberList, HostTaskList, host_line, total_line
from teamdeck.tui.render import NOTICE_CHARS, cell, safe
from teamdeck.tui.widgets.confirm_bar import ConfirmBar, Confirmed, ConfirmRequest, NoteRule, ask_confirm
from teamdeck.tui.widgets.line_list import LineList

Ask = Callable[[Link, str, Mapping[str, object]], None]
"""Asks a host for an action (its link, the op, its arguments); the reply is a notice."""


class HostsScreen(Screen[None]):
    """Every host at a glance (see the module)."""

    BINDINGS = [
        Binding("a", "answer('approve')", "Approve", id="approve"),
        Binding("r", "answer('reject')", "Reject", id="reject"),
        Binding("enter", "inbox", "Inbox", id="inbox"),
        Binding("m", "message", "Message", id="message"),
        Binding("s", "shutdown", "Shut down", id="shutdown"),
        Binding("tab", "app.focus_next", "Next list", show=False),
    ]

    def __init__(self, links: list[Link], ask: Ask) -> None:
        super().__init__(id="hosts-screen")
        self.links = links
        self._ask = ask
        self.queue: list[HostDecision] = []
        self.members: list[HostMember] = []

    def compose(self) -> ComposeResult:
        yield ConfirmBar(id="confirm-bar")
        yield Static(id="host-lines")
        yield Label("Decisions waiting, every host, oldest first", classes="hosts--title")
        yield HostDecisionList(empty="no decisions waiting on any host", id="host-queue")
        yield Label("Members, every host", classes="hosts--title")
        yield HostMemberList(empty="no teams", id="host-members")
        yield Label("Tasks, every host", classes="hosts--title")
        yield HostTaskList(empty="no tasks", id="host-tasks")
        yield Footer()

    def on_mount(self) -> None:
        self.redraw()
        self.query_one(HostDecisionList).focus()

    def redraw(self) -> None:
        """Draw every host's newest state and link."""
        lines = self.query_one("#host-lines", Static)
        lines.update(Content("\n".join([total_line(self.links), *(host_line(link) for link in self.links)])))
        self.queue = self.query_one(HostDecisionList).show(self.links)
        self.members = self.query_one(HostMemberList).show(self.links)
        self.query_one(HostTaskList).show(self.links)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The queue's keys on the queue, the members' keys on the members (the footer
        shows the keys of the list that has the focus)."""
        if action == "answer":
            return isinstance(self.focused, HostDecisionList)
        if action in ("inbox", "message", "shutdown"):
            return isinstance(self.focused, HostMemberList)
        return True

    def selected(self) -> HostDecision | None:
        """The decision under the queue's cursor."""
        key = self.query_one(HostDecisionList).current_key
        return next((item for item in self.queue if item.row_key == key), None)

    def action_answer(self, word: str) -> None:
        """Answer the selected decision with its ``word`` answer, on its host, once
        confirmed; refused at once (with why) when its host cannot take it now."""
        item = self.selected()
        if item is None:
            self._tell("Select a decision first")
            return
        if not self._can_ask(item.link):
            return
        host = cell(item.link.host.name, 16)
        answers = item.gate.get("answers") or {}
        answer = answers.get(word) or {}
        action, label = str(answer.get("action") or word), cell(str(answer.get("label") or word), 20)
        asked = answer.get("note")
        note: NoteRule = asked if asked in ("none", "optional", "required") else "optional"
        what = cell(str(item.gate.get("label") or "decision"), 20)
        questions = "\n".join(f"  {question}" for question in item.gate.get("questions") or [])
        body = safe(f"{item.gate.get('key')}\n{item.gate.get('title') or ''}\n{questions}".rstrip(), limit=2_000)
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
        self._ask(item.link, "answer", {"key": item.gate.get("key"), "answer": action, "note": confirmed.note})

    def action_message(self) -> None:
        """Message the selected member, from its team's lead, on its host."""
        item = self._selected_member()
        if item is None or not self._can_ask(item.link):
            return
        title = Content.assemble(
            ("Message ", "bold"),
            (cell(item.name, 64), "bold $accent"),
            f" (team {cell(item.team, 64)} on {cell(item.link.host.name, 16)})",
        )

        def send(draft: Draft | None) -> None:
            if draft is not None:
                args = {"team": item.team, "member": item.name, "summary": draft.summary, "text": draft.text}
                self._ask(item.link, "message", args)

        self.app.push_screen(ComposeScreen(title, "the team's lead"), send)

    def action_shutdown(self) -> None:
        """Ask the selected member to shut down, on its host, once confirmed."""
        item = self._selected_member()
        if item is None or not self._can_ask(item.link):
            return
        host = cell(item.link.host.name, 16)
        ask_confirm(
            self,
            ConfirmRequest(
                title=Content(f"Ask {cell(item.name, 64)} on {host} to shut down?"),
                body=Content(
                    f"A shutdown_request goes to its inbox on {host}; its status there shows the handshake: "
                    "requested → approved or rejected → offline."
                ),
                confirm="Request shutdown",
                note="optional",
                note_label="Reason",
                danger=True,
            ),
            lambda confirmed: self._ask(
                item.link, "shutdown", {"team": item.team, "member": item.name, "reason": confirmed.note}
            ),
        )

    @on(LineList.Chosen, "#host-members")
    def _chosen(self, event: LineList.Chosen) -> None:
        """A double click on a member: its inbox."""
        self.action_inbox()

    def action_inbox(self) -> None:
        """The selected member's inbox, asked of its host."""
        item = self._selected_member()
        if item is None:
            return
        if item.link.status != "live":
            self._tell(f"{item.link.host.name} is {item.link.status}: its inbox cannot be read now")
            return
        self._read(item)

    @work(thread=True, group="inbox", exclusive=True, exit_on_error=False)
    def _read(self, item: HostMember) -> None:
        answer = item.link.query("inbox", {"team": item.team, "member": item.name})
        self.app.call_from_thread(self._show_inbox, item, answer)

    def _show_inbox(self, item: HostMember, answer: Answer) -> None:
        host = cell(item.link.host.name, 16)
        if not answer.ok:
            self._tell(f"{item.link.host.name}: {answer.text}", title="No inbox", severity="error")
            return
        title = Content.assemble(
            ("Inbox of ", "bold"), (cell(item.name, 64), "bold $accent"), f" (team {cell(item.team, 64)} on {host})"
        )
        self.app.push_screen(TextScreen(title, inbox_text(answer.data)))

    def _selected_member(self) -> HostMember | None:
        key = self.query_one(HostMemberList).current_key
        found = next((item for item in self.members if item.row_key == key), None)
        if found is None:
            self._tell("Select a member first")
        return found

    def _can_ask(self, link: Link) -> bool:
        """Whether ``link``'s host can take an action now; if not, says why."""
        if link.status != "live":
            self._tell(f"{link.host.name} is {link.status} since {link.since:%H:%M:%S}: nothing was sent")
            return False
        if link.host.read_only or link.server.get("readOnly"):
            self._tell(f"{link.host.name} is read-only: nothing was sent")
            return False
        return True

    def _tell(self, text: str, *, title: str = "", severity: SeverityLevel = "warning") -> None:
        """A notice of ``text``, which may hold a host's words: sanitised, never markup."""
        self.notify(cell(text, NOTICE_CHARS), title=title, severity=severity, markup=False)


def inbox_text(data: object) -> str:
    """A member's inbox (an ``inbox`` answer) as text, oldest first; sanitised where it is
    drawn (the text view), as every text from an agent."""
    messages = data.get("messages") if isinstance(data, dict) else None
    if not messages:
        return "no messages"
    parts = []
    for message in messages:
        unread = "" if message.get("read") else "  (unread)"
        count = f" ×{message.get('count')}" if (message.get("count") or 1) > 1 else ""
        head = f"{message.get('timestamp')}  from {message.get('from')}  [{message.get('kind')}{count}]{unread}"
        summary = f"\n  {message.get('summary')}" if message.get("summary") else ""
        parts.append(f"{head}{summary}\n{message.get('text') or ''}")
    return "\n\n".join(parts)
