"""The decisions waiting, oldest first: age, kind (its spec's label), source, who waits,
what is asked."""

from __future__ import annotations

from datetime import datetime

from teamdeck.decisions.registry import spec_of
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.figures.overview import age_until
from teamdeck.view.snapshot.workspace import Decision, same_items


class DecisionList(LineList):
    """One row per open decision (line API).

    When the selected decision goes (answered, or decided elsewhere), nothing is
    selected until the person moves (:attr:`LineList.KEEP_PLACE`): the row that took
    its place is one they have not looked at, and a key typed next (the rest of a
    note, a second ``a``) must not answer it. Moving onto it is one key (``j``)."""

    KEEP_PLACE = True

    _drawn: tuple[tuple[Decision, ...], datetime, frozenset[str]] | None = None
    """The decisions, the whole second their ages were last worked out from, the new ones."""

    _kept: dict[int, tuple[Decision, int, bool, Row]] | None = None
    """id of a decision → the decision, the second its drawn age stops being right, whether it
    was marked new, and its row."""

    def show(self, decisions: tuple[Decision, ...], now: datetime, new: frozenset[str] = frozenset()) -> bool:
        """Show ``decisions`` with their ages at ``now``, the keys in ``new`` marked as
        arrived since the person last looked (tui/alerts.py); False when nothing could
        have changed (the same decisions, marks and second). A row is made again only when
        its decision, its mark or the text of its age changed: a decision at 10x, or a new
        second, draws 2,500 rows, nearly all of them kept."""
        now = now.replace(microsecond=0)
        if self._drawn is not None and self._drawn[1:] == (now, new) and same_items(decisions, self._drawn[0]):
            return False
        self._drawn = (decisions, now, new)
        second = int(now.timestamp())
        until_at = age_until(now)
        last = self._kept or {}
        kept: dict[int, tuple[Decision, int, bool, Row]] = {}
        rows = []
        for decision in decisions:
            marked = decision.key in new if new else False
            found = last.get(id(decision))
            if found is not None and found[0] is decision and second < found[1] and found[2] is marked:
                kept[id(decision)] = found
                rows.append(found[3])
                continue
            shown_age, until = until_at(decision.created_at)
            row = decision_row(decision, shown_age, marked)
            kept[id(decision)] = (decision, until, marked, row)
            rows.append(row)
        self._kept = kept
        self.set_rows(rows)
        return True

    def filtered_out(self, total: int) -> str:
        """The filter hides every decision: say so, and how many wait."""
        return f"no decision matches “{cell(self.filter_text, 60)}” — {total} waiting in all (esc clears the filter)"


NEW_MARK = "●"
"""After the age of a decision that arrived since the person last looked."""


def decision_row(decision: Decision, shown_age: str, new: bool = False) -> Row:
    """The row of ``decision``, its age reading ``shown_age``."""
    what = spec_of(decision).label_for(decision)
    questions = (
        f" ({len(decision.questions)} question{'s' if len(decision.questions) != 1 else ''})"
        if decision.questions
        else ""
    )
    return Row(
        decision.key,
        (
            Cell(
                shown_age.ljust(4) + NEW_MARK if new else shown_age,
                5,
                "line-list--warning",
            ),
            Cell(what, 8, "line-list--accent"),
            Cell(cell(decision.task_id or decision.team or decision.source, 40), 28),
            Cell(cell(decision.agent or "", 40), 24, "line-list--bold"),
            Cell(cell(decision.title, 300) + questions),
        ),
    )
