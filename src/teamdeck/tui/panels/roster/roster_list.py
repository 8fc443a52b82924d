"""Every member of every team: marker (``!`` a problem, ``▶`` a run going, ``●`` connected over MCP), name
in its colour, derived status, unread count, last activity, team, role, model - under a
header line naming the columns. A team whose config.json is broken now shows its last
good read: its members are marked ``!`` and its team cell says so."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import PurePosixPath

from teamdeck.model.team import COLORS
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row, header_text
from teamdeck.view.figures.overview import age
from teamdeck.view.snapshot.workspace import MemberView, TeamView

STATUS_STYLES = {
    "working": "line-list--success",
    "idle": "line-list--dim",
    "awaiting": "line-list--warning",
    "shutdown-requested": "line-list--warning",
    "shutdown-stuck": "line-list--error",
    "shutdown-approved": "line-list--error",
    "offline": "line-list--dim",
    "never-run": "line-list--dim",
    "running": "line-list--success",
    "failed": "line-list--error",
}
RUNNING = "▶"
"""The marker of a member whose run (``teamdeck run``) is going."""
CONNECTED = "●"
"""The marker of a member an MCP server acts as (``teamdeck mcp --http``)."""
COLUMNS: tuple[tuple[str, int | None], ...] = (
    ("", 1),
    ("member", 28),
    ("status", 30),
    ("unread", 6),
    ("last", 5),
    ("team", 24),
    ("role", 20),
    ("model", None),
)
"""The roster's columns: title and most width (None: the rest of the line); each is as
wide as its widest cell. Most important first: a narrow terminal cuts the columns on
the right."""
HEADER = header_text(COLUMNS)
LAST_GOOD = "last good read"
"""The team cell's word for a team whose roster file is broken now."""


class RosterList(LineList):
    """One row per member (line API)."""

    COMPONENT_CLASSES = LineList.COMPONENT_CLASSES | {f"roster--{color}" for color in COLORS}

    def on_mount(self) -> None:
        self.titles = tuple(title for title, _width in COLUMNS)

    @property
    def header(self) -> str:
        """The column titles laid out as the rows are now."""
        widths = next(iter(self.widths.values()), None)
        if widths is None:
            return HEADER
        return header_text([(title, width) for (title, _asked), width in zip(COLUMNS, widths, strict=True)])

    def show(
        self,
        members: tuple[MemberView, ...],
        now: datetime,
        stale: frozenset[str] = frozenset(),
        running: Mapping[str, str] | None = None,
        broken: frozenset[str] = frozenset(),
    ) -> None:
        """Show ``members``; those whose keys are in ``stale`` (view/figures/liveness.py) say so;
        ``running``: key -> since when its run goes (``▶``); ``broken``: the teams shown
        from the last good read of a file that is broken now (:func:`last_good_read`)."""
        going = running or {}
        self.set_rows(
            self.memo.rows(
                members,
                lambda member: member_row(
                    member,
                    now,
                    stale=member.key in stale,
                    running=going.get(member.key),
                    last_good=member.team in broken,
                ),
                lambda member: (
                    age(member.since, now),
                    age(member.last_activity, now),
                    member.key in stale,
                    age(going[member.key], now) if member.key in going else None,
                    member.team in broken,
                ),
            )
        )


def status_text(member: MemberView, now: datetime, *, stale: bool = False) -> str:
    """``idle 5m``, ``shutdown requested 30s``, ``working``; ``stale 3d (working)`` for a
    member quiet for longer than the workspace's staleAfterSeconds."""
    if stale:
        quiet = age(member.last_activity, now) if member.last_activity else ""
        return f"stale {quiet} ({status_text(member, now)})" if quiet else f"stale ({status_text(member, now)})"
    label = member.status_label
    if member.since and member.status != "working":
        when = age(member.since, now)
        return f"{label} {when}" if when else label
    return label


def last_good_read(team: TeamView) -> str | None:
    """``config.json is broken: showing the last good read`` when what is shown of
    ``team`` is what its roster file said before it broke (the view keeps the last
    roster it could read, where ``teamdeck status`` reads the file afresh and finds no
    member); None when the file reads, or the team ended (its directory is gone)."""
    if team.problem is None or team.ended:
        return None
    return f"{PurePosixPath(team.problem.path).name or team.problem.path} is broken: showing the {LAST_GOOD}"


def member_row(
    member: MemberView, now: datetime, *, stale: bool = False, running: str | None = None, last_good: bool = False
) -> Row:
    """A member's row; ``running``: since when its run goes (None: no run going);
    ``last_good``: its team's roster file is broken now, this is its last good read."""
    flagged = bool(member.markers or member.inbox_problem or last_good)
    status = status_text(member, now, stale=stale)
    if running is not None and member.status != "running":  # a status of its own says since when
        status += f" ▶ {age(running, now)}" if running else " ▶"
    color = member.color if member.color in COLORS else None
    role = "lead" if member.lead else (member.role or member.agent_type or "")  # teamdeck's role, else agentType
    texts_and_styles = (
        ("!", "line-list--error")
        if flagged
        else (RUNNING, "line-list--accent")
        if running is not None
        else (CONNECTED, "line-list--success")
        if member.connected
        else (" ", "line-list--error"),
        (cell(member.name, 64), f"roster--{color}" if color else "line-list--bold"),
        (status, "line-list--dim" if stale else STATUS_STYLES.get(member.status, "")),
        (f"{member.unread} new" if member.unread else "", "line-list--accent"),
        (age(member.last_activity, now) if member.last_activity else "", "line-list--dim"),
        (f"{cell(member.team, 64)}: {LAST_GOOD}", "line-list--error")
        if last_good
        else (cell(member.team, 64), "line-list--dim"),
        (cell(role, 40), ""),
        (cell(member.model or "", 40), "line-list--dim"),
    )
    return Row(
        member.key,
        tuple(
            Cell(text, width, style) for (text, style), (_title, width) in zip(texts_and_styles, COLUMNS, strict=True)
        ),
    )
