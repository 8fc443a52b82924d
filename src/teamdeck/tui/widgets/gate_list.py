"""The decisions waiting, oldest first: age, kind (its spec's label), source, who waits,
what is asked."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from teamdeck.decisions.registry import spec_of
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.overview import ages_at
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
        same_moment = self._drawn is not None and self._drawn[1:] == (now, new)
        if same_moment and same_items(gates, self._drawn[0]):  # type: ignore[index]
            return False
        self._drawn = (gates, now, new)
        age_of = ages_at(now)
        self.set_rows(
            self.memo.rows(
                gates,
                lambda gate: gate_row(gate, now, gate.key in new, age_of),
                # In the same second with the same marks, a row kept is still right: a
                # decision at 10x draws 2,500 rows without ageing each again.
                None if same_moment else lambda gate: (age_of(gate.created_at), gate.key in new),
            )
        )
        return True


NEW_MARK = "●"
"""After the age of a decision that arrived since the person last looked."""


def gate_row(gate: Decision, now: datetime, new: bool = False, age_of: Callable[[str], str] | None = None) -> Row:
    """The row of ``gate`` with its age at ``now`` (``age_of``: the ages at ``now``, made
    once for a whole list)."""
    shown_age = (age_of or ages_at(now))(gate.created_at)
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
