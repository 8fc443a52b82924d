"""Panel 3: the inbox of the member selected in the roster - each kind rendered for
what it is, unread marked, long text cut in the preview with ``enter`` to read all
of it and ``v`` to see it raw (escaped). Consecutive idle notifications are one row;
``enter`` or ``e`` on it shows them all (and ``e`` folds them again)."""

from __future__ import annotations

from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.host import deck_host
from teamdeck.tui.messages import MessageMember
from teamdeck.tui.panels.inbox import KEYS
from teamdeck.tui.panels.inbox.inbox_list import KIND_LABELS, InboxList, listed
from teamdeck.tui.render import block, cell
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.snapshot.workspace import MemberView, MessageView, WorkspaceSnapshot

PREVIEW_CHARS = 600


class InboxPanel(Panel):
    """One member's inbox with a preview of the selected message."""

    LIST = "#inbox-list"
    BINDINGS = KEYS.bindings()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.member_key: str | None = None
        self.expanded: set[tuple[str, int]] = set()
        """The idle folds shown one by one: (member key, the fold's inbox index)."""
        self.hide_idle = False
        """Idle notifications are left out (``i``): only what was said."""

    def compose(self) -> ComposeResult:
        yield Static(
            Content.styled("select a member in the roster (2) and press enter", "$text-muted"), id="inbox-title"
        )
        yield InboxList(empty="no messages", id="inbox-list")
        with VerticalScroll(id="message-preview", classes="detail"):
            yield Static(id="message-preview-text")

    def select_member(self, key: str) -> None:
        """Show the inbox of member ``key`` (``team/name``)."""
        self.member_key = key
        if self.snapshot is not None:
            self.show(self.snapshot)

    @property
    def member(self) -> MemberView | None:
        if self.snapshot is None:
            return None
        if self.member_key is None and self.snapshot.members:
            self.member_key = self.snapshot.members[0].key
        return self.snapshot.member(self.member_key) if self.member_key else None

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        self.snapshot = snapshot
        member = self.member
        title = self.query_one("#inbox-title", Static)
        inbox = self.query_one(InboxList)
        if member is None:
            inbox.show((), deck_host(self).ws.clock())
            return
        inbox.show(self.shown_messages(member), deck_host(self).ws.clock(), self._expanded(member))
        self._show_title(member, title)
        self._preview()

    def _show_title(self, member: MemberView, title: Static) -> None:
        """``inbox of bob (team alpha) · 6 shown of 14 row(s) · 2 unread``: the rows
        counted are the ones the list shows (an open fold's notifications too); when
        hiding the idle notifications or the filter leaves some out, how many of all."""
        shown, rows = len(self.query_one(InboxList).rows), sum(1 for _ in listed(member.inbox, self._expanded(member)))
        counted = f"{rows} row(s)" if shown == rows else f"{shown} shown of {rows} row(s)"
        idle = sum(message.count for message in member.inbox if message.kind == "idle")
        hidden = f" · {idle} idle notification(s) hidden (i shows them)" if self.hide_idle else ""
        parts: list[str | tuple[str, str]] = [
            ("inbox of ", "$text-muted"),
            (cell(member.name, 64), "bold"),
            f" (team {cell(member.team, 64)}) · {counted} · {member.unread} unread{hidden}",
        ]
        if member.inbox_problem is not None:
            parts += ["  ", (f"! {cell(member.inbox_problem.text, 300)}", "bold $error")]
        title.update(Content.assemble(*parts))

    def rows_filtered(self) -> None:
        member = self.member
        if member is not None:
            self._show_title(member, self.query_one("#inbox-title", Static))

    def _expanded(self, member: MemberView) -> frozenset[int]:
        """The indexes of ``member``'s idle folds shown one by one."""
        return frozenset(index for key, index in self.expanded if key == member.key)

    def shown_messages(self, member: MemberView) -> tuple[MessageView, ...]:
        """The member's inbox as listed: without the idle notifications when hidden."""
        if not self.hide_idle:
            return member.inbox
        return tuple(message for message in member.inbox if message.kind != "idle")

    def action_toggle_idle(self) -> None:
        """Hide the idle notifications (they can be most of an inbox), or show them again."""
        self.hide_idle = not self.hide_idle
        if self.snapshot is not None:
            self.show(self.snapshot)

    def tick(self, now: datetime) -> None:
        member = self.member
        if member is not None:
            self.query_one(InboxList).show(self.shown_messages(member), now, self._expanded(member))

    @property
    def selected(self) -> MessageView | None:
        inbox = self.query_one(InboxList)
        key = inbox.current_key
        return inbox.by_key.get(key) if self.member is not None and key is not None else None

    def _fold_under_cursor(self) -> int | None:
        """The inbox index of the idle fold under the cursor (its row, or one of the
        notifications it shows), or None."""
        inbox = self.query_one(InboxList)
        key = inbox.current_key
        if key is None:
            return None
        if key in inbox.parents:
            return inbox.parents[key]
        message = inbox.by_key.get(key)
        return message.index if message is not None and message.folded else None

    @on(LineList.Highlighted, "#inbox-list")
    def _preview(self) -> None:
        message = self.selected
        self.query_one("#message-preview-text", Static).update(preview(message) if message else Content(""))
        self.selection_moved()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("read", "raw") and self.selected is None:
            return None
        if action == "toggle_fold" and self._fold_under_cursor() is None:
            return False
        if action == "reply" and (self.member is None or deck_host(self).read_only):
            return None
        return True

    @on(LineList.Chosen, "#inbox-list")
    def action_read(self) -> None:
        message = self.selected
        if message is not None and message.folded:
            self.action_toggle_fold()
            return
        self._open(raw=False)

    def action_toggle_fold(self) -> None:
        """Show the idle fold under the cursor one by one, or fold it again."""
        index, member = self._fold_under_cursor(), self.member
        if index is None or member is None or self.snapshot is None:
            return
        self.expanded ^= {(member.key, index)}
        self.show(self.snapshot)
        self.query_one(InboxList).select_key(str(index))

    def action_raw(self) -> None:
        self._open(raw=True)

    def _open(self, *, raw: bool) -> None:
        message = self.selected
        if message is None:
            return
        screen = TextScreen(
            Content(f"{KIND_LABELS.get(message.kind, cell(message.kind, 40))} from {cell(message.sender, 64)}"),
            message.text or message.summary if not raw else message.raw,
            header=preview(message, header=True),
        )
        if raw:
            screen.raw = True
        self.app.push_screen(screen)

    def action_reply(self) -> None:
        if self.member is not None:
            self.post_message(MessageMember(self.member.key))


def preview(message: MessageView, *, header: bool = False) -> Content:
    """A message's header and the start of its text (sanitised)."""
    parts: list[str | tuple[str, str]] = [
        (KIND_LABELS.get(message.kind, cell(message.kind, 40)), "bold $accent"),
        f" from {cell(message.sender, 64)} at {cell(message.timestamp, 40)}",
        ("" if message.read else "  unread"),
    ]
    if message.count > 1:
        parts.append(f"  ({message.count} idle notifications folded; enter or e: show them all)")
    if message.request_id:
        parts.append(f"  request {cell(message.request_id, 100)}")
    parts.append("\n")
    if message.summary:
        parts += [(cell(message.summary, 300), "bold"), "\n"]
    if not header and message.text and message.text != message.summary:
        text = block(message.text, PREVIEW_CHARS)
        parts.append(text)
        if len(message.text) > PREVIEW_CHARS:
            parts.append(("\n(enter: read all · v: raw)", "$text-muted"))
    return Content.assemble(*parts)
