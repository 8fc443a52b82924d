"""Every issue of an issue-driven team as a tree: a parent, then its subs indented; the
number, status, assignees, what it waits on, its PR and review, the title."""

from __future__ import annotations

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.snapshot.issues import IssueView

STATUS_STYLES = {
    "discussion": "line-list--accent",
    "executing": "line-list--accent",
    "round review": "line-list--warning",
    "new round": "line-list--warning",
    "achieved": "line-list--success",
    "pending": "line-list--dim",
    "waiting": "line-list--warning",
    "working": "line-list--accent",
    "review": "line-list--accent",
    "done": "line-list--success",
    "closed": "line-list--dim",
}


class IssueList(LineList):
    """One row per issue (line API), parents before their subs."""

    REST_MIN = 24

    def show(self, issues: tuple[IssueView, ...]) -> None:
        self.set_rows(self.memo.rows(issues, issue_row))


def issue_key(issue: IssueView) -> str:
    return issue.ref


def issue_row(issue: IssueView) -> Row:
    waits = ",".join(f"#{number}" for number in issue.waiting_on)
    flag = "!" if issue.problem else ("⚑" if issue.round_task and issue.outcome is None else " ")
    review = {"approved": "approved", "changes_requested": "changes"}.get(issue.review or "", "")
    return Row(
        issue_key(issue),
        (
            Cell(flag, 1, "line-list--error" if issue.problem else "line-list--warning"),
            Cell(("  └ " if issue.depth else "") + f"#{issue.number}", 10, "line-list--bold"),
            Cell(issue.shown_status, 12, STATUS_STYLES.get(issue.shown_status, "")),
            Cell(cell(", ".join(issue.assignees) or "-", 40), 18),
            Cell(f"waits {waits}" if waits else "", 12, "line-list--warning"),
            Cell(f"PR {issue.pull}" if issue.pull else "", 16, "line-list--dim"),
            Cell(review, 9, "line-list--success" if review == "approved" else "line-list--warning"),
            Cell(cell(issue.title, 200)),
        ),
    )
