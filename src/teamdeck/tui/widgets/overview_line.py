"""The one-line overview at the top: workspace, teams, members by liveness, decisions
waiting (with the oldest one's age), stalled team tasks, unread messages, problems,
read-only.

It changes with nearly every change of the workspace (the unread count), so it is drawn
with the line API from a cached line: as a ``Static`` of ``Content``, each change
wrapped and styled the line again and Textual rendered it through its visual pipeline,
the larger part of the UI's work per change (0.4 of ~1.5 ms at 20 changes/s)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from textual.strip import Strip

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_style import CachedLine
from teamdeck.view.figures.overview import Overview, overview
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

Parts = tuple[tuple[str, str], ...]
"""The line as pieces of text, each with its component class (``""``: plain)."""

MUTED, BOLD = "overview-line--muted", "overview-line--bold"
SUCCESS, WARNING, ERROR = "overview-line--success", "overview-line--warning", "overview-line--error"
READ_ONLY = "overview-line--read-only"


class OverviewLine(CachedLine):
    """The header line (drawn from the snapshot's :func:`overview`)."""

    COMPONENT_CLASSES = {MUTED, BOLD, SUCCESS, WARNING, ERROR, READ_ONLY}
    DEFAULT_CSS = """
    OverviewLine {
        & > .overview-line--muted { color: $text-muted; }
        & > .overview-line--bold { text-style: bold; }
        & > .overview-line--success { color: $success; }
        & > .overview-line--warning { color: $warning; text-style: bold; }
        & > .overview-line--error { color: $error; text-style: bold; }
        & > .overview-line--read-only { color: $error; text-style: bold reverse; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._drawn: tuple[WorkspaceSnapshot, datetime] | None = None
        self._parts: Parts = ((" reading the workspace…", MUTED),)

    @property
    def plain(self) -> str:
        """The line's text, as shown."""
        return "".join(text for text, _ in self._parts)

    def show(self, snapshot: WorkspaceSnapshot, now: datetime) -> None:
        """Draw the overview of ``snapshot`` with ages measured at ``now`` (repainted
        only when its text or styles changed)."""
        self._drawn = (snapshot, now)
        counts = overview(snapshot, now)  # once: each form below words the same counts
        parts = overview_parts(snapshot, now, counts=counts)
        if _width(parts) > self.size.width:  # short words: every number still fits
            parts = overview_parts(snapshot, now, compact=True, counts=counts)
        if _width(parts) > self.size.width:  # the team count goes first (the least needed)
            parts = overview_parts(snapshot, now, compact=True, teams=False, counts=counts)
        if _width(parts) > self.size.width > 0:
            parts = _fitted(parts, self.size.width)
        if parts != self._parts:
            self._parts = parts
            self.refresh()

    def on_resize(self) -> None:
        if self._drawn is not None:
            self.show(*self._drawn)

    def drawn_from(self, width: int) -> object:
        return (self._parts, width)

    def draw(self, width: int) -> Strip:
        styles = self.component_styles
        segments = [Segment(text, styles(component) if component else styles()) for text, component in self._parts]
        return Strip(segments).extend_cell_length(width, self.rich_style).crop(0, width)


def overview_parts(
    snapshot: WorkspaceSnapshot,
    now: datetime,
    *,
    compact: bool = False,
    teams: bool = True,
    counts: Overview | None = None,
) -> Parts:
    """The overview as pieces of text with their component classes (every piece from
    sanitised text); ``teams=False`` leaves the team count out (compact only);
    ``counts``: the overview of ``snapshot`` at ``now`` when already counted."""
    counts = counts or overview(snapshot, now)
    separator = ("│" if compact else " │ ", MUTED)
    # Compact: no member count (the three counts after it add up to it; "15m" beside
    # "oldest 45m" read as minutes).
    people = (
        (f"{counts.teams} team{_s(counts.teams)}: " if teams else "")
        if compact
        else f"{counts.teams} team{_s(counts.teams)} · {counts.members} member{_s(counts.members)}: "
    )
    # READ-ONLY leads the line: it must stay visible however narrow the terminal is.
    parts: list[tuple[str, str]] = [(" READ-ONLY ", READ_ONLY)] if snapshot.read_only else []
    parts += [
        (f" {cell(Path(snapshot.root).name or snapshot.root, 24 if compact else 40)} ", BOLD),
        separator,
        (people, ""),
        (f"{counts.active} active", SUCCESS),
        (" ", ""),
        (f"{counts.idle} idle", MUTED),
        (" ", ""),
        (f"{counts.offline} off" if compact else f"{counts.offline} offline", MUTED),
    ]
    if counts.stale:  # quiet for staleAfterSeconds: their last status is no longer believed
        parts += [(" ", ""), (f"{counts.stale} stale", MUTED)]
    parts.append(separator)
    if counts.decisions:
        waiting = (
            f"{counts.decisions} waiting, oldest {counts.oldest_decision_age}"
            if compact
            else f"{counts.decisions} decision{_s(counts.decisions)} waiting (oldest {counts.oldest_decision_age})"
        )
        parts.append((waiting, WARNING))
    elif compact:  # the team count is already on the line (or left out for room)
        parts.append((f"no decisions ({counts.tasks} task{_s(counts.tasks)} scanned)", MUTED))
    else:
        parts.append((f"no decisions waiting — {counts.scanned()}", MUTED))
    if counts.stalled:
        label = f"{counts.stalled} stalled" if compact else f"{counts.stalled} stalled task{_s(counts.stalled)}"
        parts += [separator, (label, WARNING)]
    parts += [separator, (f"{counts.unread} unread", BOLD if counts.unread else MUTED)]
    if counts.problems:
        label = f"{counts.problems} bad" if compact else f"{counts.problems} problem{_s(counts.problems)}"
        parts += [separator, (label, ERROR)]
    return tuple(parts)


def _width(parts: Parts) -> int:
    return sum(cell_len(text) for text, _ in parts)


def _fitted(parts: Parts, width: int) -> Parts:
    """``parts`` in ``width`` cells: the workspace name (the piece after READ-ONLY, the
    least needed: the person chose it) shortened first, so the counts on the right
    stay whole; what still does not fit ends in ``…``, never mid-word unmarked."""
    index = 1 if parts and parts[0][1] == READ_ONLY else 0
    name, style = parts[index]
    over = _width(parts) - width
    room = cell_len(name) - over
    if room >= 6:  # " ab… " still names it
        shortened = " " + set_cell_size(name.strip(), room - 3) + "… "
        return (*parts[:index], (shortened, style), *parts[index + 1 :])
    cut: list[tuple[str, str]] = []
    used = 0
    for text, component in parts:
        if used + cell_len(text) > width - 1:
            cut.append((set_cell_size(text, max(0, width - 1 - used)) + "…", component))
            break
        cut.append((text, component))
        used += cell_len(text)
    return tuple(cut)


def _s(count: int) -> str:
    return "" if count == 1 else "s"
