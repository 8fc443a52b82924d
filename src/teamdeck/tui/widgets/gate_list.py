"""The decisions waiting, oldest first: age, kind, source, who waits, what is asked."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.overview import Ages, age
from teamdeck.view.snapshot import GateView, same_items

KIND_LABELS = {"task-gate": "gate", "plan-approval": "plan", "permission": "permit", "shutdown-stuck": "shutdown"}
SUBKIND_LABELS = {"verification-failed": "FAIL", "round-review": "round"}
"""A task gate's own kind, where it says more than "gate"."""


class GateList(LineList):
    """One row per open gate (line API)."""

    _drawn: tuple[tuple[GateView, ...], datetime] | None = None
    """The gates and the whole second their ages were last worked out from."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.ages = Ages()

    def show(self, gates: tuple[GateView, ...], now: datetime) -> bool:
        """Show ``gates`` with their ages at ``now``; False when nothing could have
        changed (the same gates, and the same second: ages are worked out at most once
        a second, not for all the gates on every change of the workspace)."""
        now = now.replace(microsecond=0)
        if self._drawn is not None and self._drawn[1] == now and same_items(gates, self._drawn[0]):
            return False
        self._drawn = (gates, now)
        ages = self.ages.at(now)
        self.set_rows(self.memo.rows(gates, lambda gate: gate_row(gate, now), lambda gate: ages(gate.created_at)))
        return True


def gate_row(gate: GateView, now: datetime) -> Row:
    what = (
        SUBKIND_LABELS.get(gate.subkind, KIND_LABELS[gate.kind]) if gate.kind == "task-gate" else KIND_LABELS[gate.kind]
    )
    questions = f" ({len(gate.questions)} question{'s' if len(gate.questions) != 1 else ''})" if gate.questions else ""
    return Row(
        gate.key,
        (
            Cell(age(gate.created_at, now), 5, "line-list--warning"),
            Cell(what, 8, "line-list--accent"),
            Cell(cell(gate.task_id or gate.team or gate.source, 40), 16),
            Cell(cell(gate.agent or "", 40), 14, "line-list--bold"),
            Cell(cell(gate.title, 300) + questions),
        ),
    )
