"""Every member of every team: marker (``!`` a problem, ``●`` connected over MCP), name
in its colour, team, role, derived status, unread count, last activity, model."""

from __future__ import annotations

from datetime import datetime

from teamdeck.model.claude import COLORS
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.overview import age
from teamdeck.view.snapshot import MemberView

STATUS_STYLES = {
    "working": "line-list--success",
    "idle": "line-list--dim",
    "awaiting": "line-list--warning",
    "shutdown-requested": "line-list--warning",
    "shutdown-approved": "line-list--error",
    "offline": "line-list--dim",
}
CONNECTED = "●"
"""The marker of a member an MCP server acts as (``teamdeck mcp --http``)."""
STATUS_LABELS = {"shutdown-requested": "shutdown requested", "shutdown-approved": "shutdown approved"}


class RosterList(LineList):
    """One row per member (line API)."""

    COMPONENT_CLASSES = LineList.COMPONENT_CLASSES | {f"roster--{color}" for color in COLORS}

    def show(self, members: tuple[MemberView, ...], now: datetime) -> None:
        self.set_rows(
            self.memo.rows(
                members,
                lambda member: member_row(member, now),
                lambda member: (age(member.since, now), age(member.last_activity, now)),
            )
        )


def status_text(member: MemberView, now: datetime) -> str:
    """``idle 5m``, ``shutdown requested 30s``, ``working``..."""
    label = STATUS_LABELS.get(member.status, member.status)
    if member.since and member.status != "working":
        when = age(member.since, now)
        return f"{label} {when}" if when else label
    return label


def member_row(member: MemberView, now: datetime) -> Row:
    flagged = bool(member.markers or member.inbox_problem)
    color = member.color if member.color in COLORS else None
    role = "lead" if member.lead else (member.agent_type or "")
    # Most important first: a narrow terminal cuts the columns on the right.
    return Row(
        member.key,
        (
            Cell(CONNECTED, 1, "line-list--success")
            if member.connected and not flagged
            else Cell("!" if flagged else " ", 1, "line-list--error"),
            Cell(cell(member.name, 64), 16, f"roster--{color}" if color else "line-list--bold"),
            Cell(status_text(member, now), 24, STATUS_STYLES.get(member.status, "")),
            Cell(f"{member.unread} new" if member.unread else "", 6, "line-list--accent"),
            Cell(age(member.last_activity, now) if member.last_activity else "", 5, "line-list--dim"),
            Cell(cell(member.team, 64), 16, "line-list--dim"),
            Cell(cell(role, 40), 16),
            Cell(cell(member.model or "", 40), None, "line-list--dim"),
        ),
    )
