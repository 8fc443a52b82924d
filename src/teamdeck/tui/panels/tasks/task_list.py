"""Every task: teamdeck's own (id, state, gates waiting, workers by status, title), then
each team's Claude Code task list under a header row (``#id``, status, owner, subject,
what blocks it; a stalled task flagged), with its bad files as rows of their own."""

from __future__ import annotations

from rich.cells import cell_len

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.snapshot.workspace import Problem, TaskView, TeamTaskListView, TeamTaskView

STATE_STYLES = {
    "input-required": "line-list--warning",
    "failed": "line-list--error",
    "done": "line-list--success",
    "verified": "line-list--success",
    "canceled": "line-list--dim",
    "working": "line-list--accent",
}
TEAM_TASK_STYLES = {
    "in_progress": "line-list--accent",
    "completed": "line-list--success",
    "deleted": "line-list--dim",
}
ID_WIDTH = 36
"""The most the id column takes (it is as wide as the longest id shown): a plan's task
ids (``<plan>.<nn>-<title slug>``, protocol/plans/waves.py) are mostly longer than 16;
a longer one is cut in the middle, keeping the number and title at its end."""
HEADER_PREFIX = "team-tasks:"
"""Keys of the header rows (``team-tasks:<team>``); team task rows are ``<team>#<id>``."""


class TaskList(LineList):
    """One row per task (line API)."""

    def show(self, tasks: tuple[TaskView, ...], team_tasks: tuple[TeamTaskListView, ...] = ()) -> None:
        rows = self.memo.rows(tasks, task_row)
        for listing in team_tasks:
            if not listing.tasks and not listing.problems:
                continue  # an empty list (a team that has not made a task yet) says nothing
            rows.append(header_row(listing))
            rows += [team_task_row(task) for task in listing.visible]
            rows += [problem_row(listing.team, problem) for problem in listing.problems]
        self.set_rows(rows)


def workers_text(task: TaskView) -> str:
    """``1 blocked 2 completed`` (or ``no workers``; ``checking outputs`` before they are read)."""
    if not task.outputs_checked:
        return "checking outputs"
    counts = task.workers_by_status()
    return " ".join(f"{count} {status}" for status, count in sorted(counts.items())) or "no workers"


def task_row(task: TaskView) -> Row:
    waiting = len(task.open_gates)
    return Row(
        task.id,
        (
            Cell("!" if task.problem else " ", 1, "line-list--error"),
            Cell(cell(task.id, 64), ID_WIDTH, "line-list--bold", middle=True),
            Cell(cell(task.state, 20), 15, STATE_STYLES.get(task.state, "")),
            Cell(f"{waiting} waiting" if waiting else "", 10, "line-list--warning"),
            Cell(cell(task.title, 200), 60),
            Cell(workers_text(task), None, "line-list--dim"),
        ),
    )


def header_row(listing: TeamTaskListView) -> Row:
    """``team alpha · Claude Code task list: 6 tasks, 1 stalled (3 internal hidden)``."""
    counts = [f"{len(listing.visible)} task{'' if len(listing.visible) == 1 else 's'}"]
    if listing.stalled:
        counts.append(f"{len(listing.stalled)} stalled")
    if listing.problems:
        counts.append(f"{len(listing.problems)} bad file{'' if len(listing.problems) == 1 else 's'}")
    hidden = f" ({listing.hidden} internal hidden)" if listing.hidden else ""
    name = f"team {cell(listing.team, 64)}"
    return Row(
        f"{HEADER_PREFIX}{listing.team}",
        (
            Cell("▸", 2, "line-list--accent"),
            Cell(name, cell_len(name), "line-list--bold"),
            Cell(f" · Claude Code task list: {', '.join(counts)}{hidden}", None, "line-list--dim"),
        ),
    )


def team_task_row(task: TeamTaskView) -> Row:
    blockers = (
        ("blocked by " + ", ".join(f"#{cell(other, 12)}" for other in task.blocked_by)) if task.blocked_by else ""
    )
    return Row(
        task.key,
        (
            Cell("!" if task.stalled else " ", 1, "line-list--warning"),
            Cell(f" #{cell(task.id, 12)}", 6, "line-list--bold"),
            Cell(cell(task.status, 20), 12, TEAM_TASK_STYLES.get(task.status, "")),
            Cell("STALLED" if task.stalled else "reported" if task.reported else "", 8, "line-list--warning"),
            Cell(cell(task.owner or "-", 40), 28),
            Cell(cell(task.subject, 200), 60),
            Cell(blockers, None, "line-list--dim"),
        ),
    )


def problem_row(team: str, problem: Problem) -> Row:
    return Row(
        f"problem:{team}:{problem.path}:{problem.where}",
        (Cell("!", 1, "line-list--error"), Cell(f" {cell(problem.text, 300)}", None, "line-list--error")),
    )
