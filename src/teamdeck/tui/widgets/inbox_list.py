"""One member's messages, oldest first: unread mark, age, sender, kind, summary
(idle notifications folded into one row that counts them)."""

from __future__ import annotations

from datetime import datetime

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.overview import age
from teamdeck.view.snapshot import MessageView

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
    """One row per message or idle fold (line API)."""

    def show(self, messages: tuple[MessageView, ...], now: datetime) -> None:
        self.set_rows(
            self.memo.rows(
                messages, lambda message: message_row(message, now), lambda message: age(message.timestamp, now)
            ),
            follow=True,
        )


def message_row(message: MessageView, now: datetime) -> Row:
    kind = KIND_LABELS.get(message.kind, message.kind)
    if message.count > 1:
        kind = f"idle ×{message.count}"
    return Row(
        f"{message.index}",
        (
            Cell("●" if not message.read else " ", 1, "line-list--accent"),
            Cell(age(message.timestamp, now), 5, "line-list--dim"),
            Cell(cell(message.sender, 64), 16, "line-list--bold"),
            Cell(cell(kind, 40), 18, KIND_STYLES.get(message.kind, "")),
            Cell(cell(message.summary, 300)),
        ),
    )
