"""The decisions waiting, oldest first: age, kind (its spec's label), source, who waits,
what is asked."""

from __future__ import annotations

from datetime import datetime

from teamdeck.decisions.registry import spec_of
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.overview import age_until
from teamdeck.view.snapshot import Decision, same_items


class GateList(LineList):
    """One row per open gate (line API)."""

    _drawn: tuple[tuple[Decision, ...], datetime, frozenset[str]] | None = None
    """The gates, the whole second their ages were last worked out from, the new ones."""

    _kept: dict[int, tuple[Decision, int, bool, Row]] | None = None
    """id of a gate → the gate, the second its drawn age stops being right, whether it
    was marked new, and its row."""

    def show(self, gates: tuple[Decision, ...], now: datetime, new: frozenset[str] = frozenset()) -> bool:
        """Show ``gates`` with their ages at ``now``, the keys in ``new`` marked as
        arrived since the person last looked (tui/alerts.py); False when nothing could
        have changed (the same gates, marks and second). A row is made again only when
        its gate, its mark or the text of its age changed: a decision at 10x, or a new
        second, draws 2,500 rows, nearly all of them kept."""
        now = now.replace(microsecond=0)
        if self._drawn is not None and self._drawn[1:] == (now, new) and same_items(gates, self._drawn[0]):
            return False
        self._drawn = (gates, now, new)
        second = int(now.timestamp())
        until_at = age_until(now)
        last = self._kept or {}
        kept: dict[int, tuple[Decision, int, bool, Row]] = {}
        rows = []
        for gate in gates:
            marked = gate.key in new if new else False
            found = last.get(id(gate))
            if found is not None and found[0] is gate and second < found[1] and found[2] is marked:
                kept[id(gate)] = found
                rows.append(found[3])
                continue
            shown_age, until = until_at(gate.created_at)
            row = gate_row(gate, shown_age, marked)
            kept[id(gate)] = (gate, until, marked, row)
            rows.append(row)
        self._kept = kept
        self.set_rows(rows)
        return True


NEW_MARK = "●"
"""After the age of a decision that arrived since the person last looked."""


def gate_row(gate: Decision, shown_age: str, new: bool = False) -> Row:
    """The row of ``gate``, its age reading ``shown_age``."""
    what = spec_of(gate).label_for(gate)
    questions = f" ({len(gate.questions)} question{'s' if len(gate.questions) != 1 else ''})" if gate.questions else ""
    return Row(
        gate.key,
        (
            Cell(
                shown_age.ljust(4) + NEW_MARK if new else shown_age,
                5,
                "line-list--warning",
            ),
            Cell(what, 8, "line-list--accent"),
            Cell(cell(gate.task_id or gate.team or gate.source, 40), 28),
            Cell(cell(gate.agent or "", 40), 24, "line-list--bold"),
            Cell(cell(gate.title, 300) + questions),
        ),
    )
