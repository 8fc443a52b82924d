"""The notices of files breaking and being fixed: what changed in the snapshot's
``problems`` between two snapshots drawn, per file.

A file is the unit, not a problem's line: while a person edits a broken config.json
its line changes with each save (``line 20`` then ``line 21``), and that is the same
broken file, not news. A file is news when it has a problem and had none in the
snapshot before (it broke), or had one and has none now (it reads again). The files
that broke are one notice, and the files fixed another (coalesced: a ``git checkout``
that breaks ten files says so once, even when the watcher reports them over a few
refreshes: a break within :data:`COALESCE_S` of the last one, while its notice is up,
replaces that notice with one naming them all). A fix takes down the notices of the
breaks it mended: the line never says a file is broken once it reads again. The first
snapshot is the baseline, as for the alerts (tui/alerts.py): what was broken before
teamdeck started is counted in the overview and listed in the Problems panel. So is
what the first snapshot had not read yet: a TUI's first snapshot leaves the workers'
outputs for after its first frame (view/refresh/build.py), and an invalid one found
then was broken before teamdeck started.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.notifications import Notification

from teamdeck.tui.render import NOTICE_CHARS, cell
from teamdeck.view.snapshot.workspace import Problem, WorkspaceSnapshot

LISTED_PATHS = 3
"""The most files a coalesced notice names (the others are counted)."""
COALESCE_S = 2.0
"""How soon after a break's notice another break joins it instead of a notice of its own."""
TIMEOUT_S = 10.0
"""How long a notice of files broken or fixed stays up."""


def broken_files(problems: Iterable[Problem]) -> dict[str, Problem]:
    """Each file with a problem and its first problem, in the snapshot's order."""
    files: dict[str, Problem] = {}
    for problem in problems:
        files.setdefault(problem.path, problem)
    return files


def unread_files(snapshot: WorkspaceSnapshot) -> frozenset[str]:
    """The files ``snapshot`` did not read yet, as the problems name them: the workers'
    outputs of each task whose outputs are not checked (``tasks/<id>``)."""
    return frozenset(f"tasks/{task.id}" for task in snapshot.tasks if not task.outputs_checked)


class ProblemNotices:
    """The notices of files broken and fixed, from each snapshot drawn to the next.

    Args:
        listed_in: where the person finds the list (the Problems tab's title).
    """

    def __init__(self, listed_in: str) -> None:
        self.listed_in = listed_in
        self._broken: list[tuple[Notification, dict[str, Problem]]] = []
        """The break notices raised, each with its files still broken."""

    def news(
        self, before: WorkspaceSnapshot, after: WorkspaceSnapshot
    ) -> tuple[list[Notification], list[Notification]]:
        """The notices to take down and the notices to show now that ``after`` is drawn
        and ``before`` was."""
        old, new, unread = broken_files(before.problems), broken_files(after.problems), unread_files(before)
        broke = {path: problem for path, problem in new.items() if path not in old and path not in unread}
        fixed = [path for path in old if path not in new]
        drop: list[Notification] = []
        show: list[Notification] = []
        still: list[tuple[Notification, dict[str, Problem]]] = []
        for notice, files in self._broken:
            for path in fixed:
                files.pop(path, None)
            if notice.has_expired:
                continue
            if not files:
                drop.append(notice)
            else:
                still.append((notice, files))
        self._broken = still
        if broke:
            last = self._broken[-1] if self._broken else None
            if last is not None and last[0].time_left > TIMEOUT_S - COALESCE_S:
                drop.append(last[0])
                self._broken.pop()
                broke = {**last[1], **broke}
            notice = self._broke_notice(list(broke.values()))
            self._broken.append((notice, broke))
            show.append(notice)
        if fixed:
            title = "File fixed" if len(fixed) == 1 else f"{len(fixed)} files fixed"
            message = f"{_named(fixed)} read{'s' if len(fixed) == 1 else ''} again"
            show.append(Notification(cell(message, NOTICE_CHARS), title, "information", TIMEOUT_S))
        return drop, show

    def _broke_notice(self, broke: list[Problem]) -> Notification:
        """The notice of the files in ``broke``: where they are listed in its title, which
        the notice line never cuts (a problem's line can be longer than the terminal)."""
        if len(broke) == 1:
            title, message = "File broken", broke[0].text
        else:
            title, message = f"{len(broke)} files broken", _named([problem.path for problem in broke])
        return Notification(cell(message, NOTICE_CHARS), f"{title} ({self.listed_in})", "warning", TIMEOUT_S)


def _named(paths: list[str]) -> str:
    """``a, b, c and 2 more``: the first :data:`LISTED_PATHS` files, the rest counted."""
    shown = ", ".join(paths[:LISTED_PATHS])
    more = len(paths) - LISTED_PATHS
    return f"{shown} and {more} more" if more > 0 else shown
