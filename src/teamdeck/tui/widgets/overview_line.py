"""The one-line overview at the top: workspace, teams, members by liveness, decisions
waiting (with the oldest one's age), unread messages, problems, read-only."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from textual.content import Content
from textual.widgets import Static

from teamdeck.tui.render import cell
from teamdeck.view.overview import overview
from teamdeck.view.snapshot import WorkspaceSnapshot


class OverviewLine(Static):
    """The header line (drawn from the snapshot's :func:`overview`)."""

    def on_mount(self) -> None:
        self.update(Content.styled(" reading the workspace…", "$text-muted"))

    def show(self, snapshot: WorkspaceSnapshot, now: datetime) -> None:
        """Draw the overview of ``snapshot`` with ages measured at ``now``."""
        self.update(overview_content(snapshot, now))


def overview_content(snapshot: WorkspaceSnapshot, now: datetime) -> Content:
    """The overview as styled ``Content`` (every part from sanitised text)."""
    counts = overview(snapshot, now)
    separator = (" │ ", "$text-muted")
    parts: list[str | tuple[str, str]] = [(f" {cell(Path(snapshot.root).name or snapshot.root, 40)}", "bold"), separator,
                                          f"{counts.teams} team{_s(counts.teams)} · {counts.members} member{_s(counts.members)}: ",
                                          (f"{counts.active} active", "$success"), " ",
                                          (f"{counts.idle} idle", "$text-muted"), " ",
                                          (f"{counts.offline} offline", "$text-muted"), separator]
    if counts.gates:
        parts.append((f"{counts.gates} decision{_s(counts.gates)} waiting (oldest {counts.oldest_gate_age})",
                      "bold $warning"))
    else:
        parts.append((f"no decisions waiting — {counts.scanned()}", "$text-muted"))
    parts += [separator, (f"{counts.unread} unread", "bold" if counts.unread else "$text-muted")]
    if counts.problems:
        parts += [separator, (f"{counts.problems} problem{_s(counts.problems)}", "bold $error")]
    if snapshot.read_only:
        parts += [separator, ("READ-ONLY", "bold $error")]
    return Content.assemble(*parts)


def _s(count: int) -> str:
    return "" if count == 1 else "s"
