"""The decisions waiting, oldest first: age, kind (its spec's label), source, who waits,
what is asked."""

from __future__ import annotations

from datetime import datetime

from teamdeck.decisions.registry import spec_of
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.overview import age
from teamdeck.view.snapshot import Decision, same_items


class GateList(LineList):
    """One row per open gate (line API)."""

    _drawn: tuple[tuple[Decision, ...], datetime, frozenset[str]] | None = None
    """The gates, the whole second their ages were last worked out from, the new ones."""

    def show(self, gates: tuple[Decision, ...], now: datetime, new: frozenset[str] = frozenset()) -> bool:
        """Show ``gates`` with their ages at ``now``, the keys in ``new`` marked as
        arrived since the person last looked (tui/alerts.py); False when nothing could
        have changed (the same gates, marks and second: ages are worked out at most
        once a second, not for all the gates on every change of the workspace)."""
        now = now.replace(microsecond=0)
        if self._drawn is not None and self._drawn[1:] == (now, new) and same_items(gates, self._drawn[0]):
            return False
        self._drawn = (gates, now, new)
        self.set_rows(
            self.memo.rows(
                gates,
                lambda gate: gate_row(gate, now, gate.key in new),
                lambda gate: (age(gate.created_at, now), gate.key in new),
            )
        )
        return True


NEW_MARK = "●"
"""After the age of a decision that arrived since the person last looked."""


def gate_row(gate: Decision, now: datetime, new: bool = False) -> Row:
    what = spec_of(gate).label_for(gate)
    questions = f" ({len(gate.questions)} question{'s' if len(gate.questions) != 1 else ''})" if gate.questions else ""
    return Row(
        gate.key,
        (
            Cell(
                age(gate.created_at, now).ljust(4) + NEW_MARK if new else age(gate.created_at, now),
                5,
                "line-list--warning",
            ),
            Cell(what, 8, "line-list--accent"),
            Cell(cell(gate.task_id or gate.team or gate.source, 40), 28),
            Cell(cell(gate.agent or "", 40), 24, "line-list--bold"),
            Cell(cell(gate.title, 300) + questions),
        ),
    )
