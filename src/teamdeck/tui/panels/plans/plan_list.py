"""Every coordinator plan: id, state, the wave being worked on, tasks done, title."""

from __future__ import annotations

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.snapshot.plans import PlanView

PLAN_STATE_STYLES = {
    "PLANNING": "line-list--warning",
    "NEEDS_FIX": "line-list--warning",
    "FAILED": "line-list--error",
    "COMPLETED": "line-list--success",
    "CANCELED": "line-list--dim",
    "EXECUTING": "line-list--accent",
    "VERIFYING": "line-list--accent",
    "WAVE_COMPLETE": "line-list--accent",
}


class PlanList(LineList):
    """One row per plan (line API)."""

    def show(self, plans: tuple[PlanView, ...]) -> None:
        self.set_rows(self.memo.rows(plans, plan_row))


def plan_row(plan: PlanView) -> Row:
    waves = len(plan.waves)
    return Row(
        plan.id,
        (
            Cell("!" if plan.problem else " ", 1, "line-list--error"),
            Cell(cell(plan.id, 64), 16, "line-list--bold"),
            Cell(plan.state, 14, PLAN_STATE_STYLES.get(plan.state, "")),
            Cell(f"wave {plan.current_wave}/{waves}" if plan.current_wave else f"{waves} waves", 10, "line-list--dim"),
            Cell(f"{plan.done()}/{len(plan.tasks)} done", 11, "line-list--dim"),
            Cell(cell(plan.title, 200)),
        ),
    )
