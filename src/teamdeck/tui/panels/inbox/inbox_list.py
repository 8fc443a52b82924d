"""One member's messages, oldest first: unread mark, age, sender, kind, summary
(consecutive idle notifications folded into one row that counts them, "idle ×7 ▸ last
2m ago"; an expanded fold lists them one by one)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.figures.overview import age
from teamdeck.view.snapshot.workspace import MessageView

KIND_LABELS = {
    "plain": "message",
    "idle": "idle",
    "task_assignment": "task assigned",
    "shutdown_request": "shutdown request",
    "shutdown_approved": "shutdown approved",
    "shutdown_rejected": "shutdown rejected",
    "plan_approval_request": "plan request",
    "plan_approval_response": "plan answer",
    "permission_request": "permission request",
    "permission_response": "permission answer",
    "invalid": "invalid entry",
}
KIND_STYLES = {
    "shutdown_request": "line-list--warning",
    "shutdown_rejected": "line-list--warning",
    "shutdown_approved": "line-list--success",
    "plan_approval_request": "line-list--warning",
    "idle": "line-list--dim",
    "invalid": "line-list--error",
}


class InboxList(LineList):
    """One row per message or idle fold (line API); an expanded fold is followed by a
    row per idle notification it folds."""

    def __init__(self, *, empty: str = "nothing to show", id: str | None = None, classes: str | None = None) -> None:
        super().__init__(empty=empty, id=id, classes=classes)
        self.by_key: dict[str, MessageView] = {}
        """Every message shown, by row key."""
        self.parents: dict[str, int] = {}
        """The row key of each idle notification shown inside a fold -> the fold's index."""

    def show(self, messages: tuple[MessageView, ...], now: datetime, expanded: frozenset[int] = frozenset()) -> None:
        """Show ``messages``; the folds whose index is in ``expanded`` show their
        notifications one by one below them."""
        items: list[MessageView] = []
        inside: set[int] = set()
        self.by_key, self.parents = {}, {}
        for message, fold in listed(messages, expanded):
            items.append(message)
            if fold is None:
                self.by_key[row_key(message)] = message
            else:
                inside.add(id(message))
                self.by_key[row_key(message, inside=True)] = message
                self.parents[row_key(message, inside=True)] = fold
        self.set_rows(
            self.memo.rows(
                items,
                lambda message: (
                    folded_row(message, now) if id(message) in inside else message_row(message, now, expanded)
                ),
                lambda message: (age(message.timestamp, now), message.index in expanded, id(message) in inside),
            ),
            follow=True,
        )


def listed(
    messages: tuple[MessageView, ...], expanded: frozenset[int] = frozenset()
) -> Iterator[tuple[MessageView, int | None]]:
    """The rows ``messages`` list, in order: each message or fold, then the idle
    notifications of a fold whose index is in ``expanded`` (each with that index;
    None for a row of its own)."""
    for message in messages:
        yield message, None
        if message.folded and message.index in expanded:
            for one in message.folded:
                yield one, message.index


def row_key(message: MessageView, *, inside: bool = False) -> str:
    """A row's key: the inbox index, or ``idle-<index>`` for a notification shown
    inside its fold (the fold's own row has the first one's index)."""
    return f"idle-{message.index}" if inside else f"{message.index}"


def message_row(message: MessageView, now: datetime, expanded: frozenset[int] = frozenset()) -> Row:
    kind = KIND_LABELS.get(message.kind, message.kind)
    summary = cell(message.summary, 300)
    if message.count > 1:
        kind = f"idle ×{message.count}"
        mark = "▾" if message.index in expanded else "▸"
        summary = f"{mark} last {age(message.timestamp, now)} ago · {summary}"
    return Row(
        row_key(message),
        (
            Cell("●" if not message.read else " ", 1, "line-list--accent"),
            Cell(age(message.timestamp, now), 5, "line-list--dim"),
            Cell(cell(message.sender, 64), 16, "line-list--bold"),
            Cell(cell(kind, 40), 18, KIND_STYLES.get(message.kind, "")),
            Cell(summary),
        ),
    )


def folded_row(message: MessageView, now: datetime) -> Row:
    """One idle notification of an expanded fold, indented under it."""
    return Row(
        row_key(message, inside=True),
        (
            Cell("●" if not message.read else " ", 1, "line-list--accent"),
            Cell(age(message.timestamp, now), 5, "line-list--dim"),
            Cell("", 16),
            Cell("  └ idle", 18, "line-list--dim"),
            Cell(cell(message.summary, 300), None, "line-list--dim"),
        ),
    )
