"""The one-line overview at the top: workspace, teams, members by liveness, decisions
waiting (with the oldest one's age), stalled team tasks, unread messages, problems,
read-only."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from textual.content import Content
from textual.widgets import Static

from teamdeck.tui.render import cell, show_content
from teamdeck.view.overview import overview
from teamdeck.view.snapshot import WorkspaceSnapshot


class OverviewLine(Static):
    """The header line (drawn from the snapshot's :func:`overview`)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._drawn: tuple[WorkspaceSnapshot, datetime] | None = None

    def on_mount(self) -> None:
        self.update(Content.styled(" reading the workspace…", "$text-muted"))

    def show(self, snapshot: WorkspaceSnapshot, now: datetime) -> None:
        """Draw the overview of ``snapshot`` with ages measured at ``now``."""
        self._drawn = (snapshot, now)
        content = overview_content(snapshot, now)
        if content.cell_length > self.size.width:  # short words, so every number still fits
            content = overview_content(snapshot, now, compact=True)
        show_content(self, content, layout=False)  # one line, 1fr wide (app.tcss): its size never changes

    def on_resize(self) -> None:
        if self._drawn is not None:
            self.show(*self._drawn)


def overview_content(snapshot: WorkspaceSnapshot, now: datetime, *, compact: bool = False) -> Content:
    """The overview as styled ``Content`` (every part from sanitised text)."""
    counts = overview(snapshot, now)
    separator = ("│" if compact else " │ ", "$text-muted")
    people = (
        f"{counts.teams}t {counts.members}m "
        if compact
        else f"{counts.teams} team{_s(counts.teams)} · {counts.members} member{_s(counts.members)}: "
    )
    # READ-ONLY leads the line: it must stay visible however narrow the terminal is.
    parts: list[str | tuple[str, str]] = [(" READ-ONLY ", "bold reverse $error")] if snapshot.read_only else []
    parts += [
        (f" {cell(Path(snapshot.root).name or snapshot.root, 24 if compact else 40)} ", "bold"),
        separator,
        people,
        (f"{counts.active} active", "$success"),
        " ",
        (f"{counts.idle} idle", "$text-muted"),
        " ",
        (f"{counts.offline} off" if compact else f"{counts.offline} offline", "$text-muted"),
        separator,
    ]
    if counts.gates:
        waiting = (
            f"{counts.gates} waiting, oldest {counts.oldest_gate_age}"
            if compact
            else f"{counts.gates} decision{_s(counts.gates)} waiting (oldest {counts.oldest_gate_age})"
        )
        parts.append((waiting, "bold $warning"))
    elif compact:
        parts.append((f"none waiting ({counts.teams}t {counts.tasks} tasks scanned)", "$text-muted"))
    else:
        parts.append((f"no decisions waiting — {counts.scanned()}", "$text-muted"))
    if counts.stalled:
        label = f"{counts.stalled} stalled" if compact else f"{counts.stalled} stalled task{_s(counts.stalled)}"
        parts += [separator, (label, "bold $warning")]
    parts += [separator, (f"{counts.unread} unread", "bold" if counts.unread else "$text-muted")]
    if counts.problems:
        label = f"{counts.problems} bad" if compact else f"{counts.problems} problem{_s(counts.problems)}"
        parts += [separator, (label, "bold $error")]
    return Content.assemble(*parts)


def _s(count: int) -> str:
    return "" if count == 1 else "s"
