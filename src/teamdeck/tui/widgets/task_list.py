"""Every teamdeck task: id, state, gates waiting, workers by status, title."""

from __future__ import annotations

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.snapshot import TaskView

STATE_STYLES = {
    "input-required": "line-list--warning",
    "failed": "line-list--error",
    "done": "line-list--success",
    "verified": "line-list--success",
    "canceled": "line-list--dim",
    "working": "line-list--accent",
}


class TaskList(LineList):
    """One row per task (line API)."""

    def show(self, tasks: tuple[TaskView, ...]) -> None:
        self.set_rows(self.memo.rows(tasks, task_row))


def workers_text(task: TaskView) -> str:
    """``1 blocked 2 completed`` (or ``no workers``)."""
    counts = task.workers_by_status()
    return " ".join(f"{count} {status}" for status, count in sorted(counts.items())) or "no workers"


def task_row(task: TaskView) -> Row:
    waiting = len(task.open_gates)
    return Row(
        task.id,
        (
            Cell("!" if task.problem else " ", 1, "line-list--error"),
            Cell(cell(task.id, 64), 16, "line-list--bold"),
            Cell(cell(task.state, 20), 15, STATE_STYLES.get(task.state, "")),
            Cell(f"{waiting} waiting" if waiting else "", 10, "line-list--warning"),
            Cell(cell(task.title, 200), 32),
            Cell(workers_text(task), None, "line-list--dim"),
        ),
    )
