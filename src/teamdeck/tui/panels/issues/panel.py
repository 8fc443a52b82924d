"""Panel 7: issue-driven teams (seed 001). The issue tree on top (parents, their subs
indented); below, the selected issue: repository, state and status, creator and
assignees, parent and Depends:, its PR and review, the round reviews of a parent, and
what stops it. ``enter`` on a parent whose round review waits opens that decision in
panel 1 (round reviews live in the one decision queue)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from teamdeck.tui.messages import OpenDecision
from teamdeck.tui.panels.issues import KEYS
from teamdeck.tui.panels.issues.issue_list import IssueList
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.snapshot.issues import IssueView
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

ROUND_GATE = "round-review"


class IssuesPanel(Panel):
    """The issue tree with the selected issue's details."""

    LIST = "#issue-list"
    BINDINGS = KEYS.bindings()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: IssueView | None = None

    def compose(self) -> ComposeResult:
        yield IssueList(
            empty="no issues: teamdeck forge serve records them as Gitea's webhooks arrive", id="issue-list"
        )
        yield Static(id="issue-detail", classes="detail")

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        self.snapshot = snapshot
        self.query_one(IssueList).show(snapshot.issues)
        self._shown = None
        self._show_detail()

    @property
    def selected(self) -> IssueView | None:
        key = self.query_one(IssueList).current_key
        if self.snapshot is None or not key:
            return None
        return next((issue for issue in self.snapshot.issues if issue.ref == key), None)

    @on(LineList.Highlighted, "#issue-list")
    def _show_detail(self) -> None:
        issue = self.selected
        if issue is self._shown and issue is not None:
            return
        self._shown = issue
        problems = self.snapshot.issue_problems if self.snapshot is not None else ()
        self.query_one("#issue-detail", Static).update(issue_detail(issue, problems))
        self.selection_moved()

    def _waiting_gate(self) -> str | None:
        """The decision-queue key of the selected issue's waiting round review, if any."""
        issue = self.selected
        if issue is None or issue.round_task is None or self.snapshot is None:
            return None
        key = f"task:{issue.round_task}:{ROUND_GATE}"
        return key if any(gate.key == key for gate in self.snapshot.decisions) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "decision":
            return True if self._waiting_gate() is not None else None
        return True

    def action_decision(self) -> None:
        key = self._waiting_gate()
        if key is not None:
            self.post_message(OpenDecision(key))

    @on(LineList.Chosen, "#issue-list")
    def _chosen(self) -> None:
        self.action_decision()


def issue_detail(issue: IssueView | None, problems: tuple[str, ...] = ()) -> Content:
    """The selected issue's fields (sanitised)."""
    parts: list[str | tuple[str, str]] = []
    if issue is not None:
        parts += [
            (cell(issue.ref, 120), "bold"),
            f"  {cell(issue.title, 200)}\n",
            ("state ", "$text-muted"),
            f"{issue.state}   ",
            ("status ", "$text-muted"),
            (issue.shown_status, "bold $text-accent"),
            "   ",
            ("creator ", "$text-muted"),
            f"{cell(issue.creator, 60)}   ",
            ("assignees ", "$text-muted"),
            f"{cell(', '.join(issue.assignees) or '-', 120)}\n",
            ("parent ", "$text-muted"),
            f"{'#' + str(issue.parent) if issue.parent else '-'}   ",
            ("depends ", "$text-muted"),
            f"{', '.join(f'#{n}' for n in issue.depends) or '-'}",
            (
                f"  (waits for {', '.join(f'#{n}' for n in issue.waiting_on)})" if issue.waiting_on else "",
                "$text-warning",
            ),
            "\n",
            ("PR ", "$text-muted"),
            f"{cell(issue.pull or '-', 40)} {cell(issue.branch or '', 100)}   ",
            ("review ", "$text-muted"),
            f"{issue.review or '-'}   ",
            ("retries ", "$text-muted"),
            f"{issue.retries}",
        ]
        if issue.work or issue.reported:
            parts += [
                ("\nasked ", "$text-muted"),
                (cell(issue.work or "nothing open", 200), "$text-warning" if issue.work else ""),
                ("   reported ", "$text-muted"),
                cell(issue.reported or "-", 120),
            ]
        if issue.commented or issue.silent:
            parts += [
                ("\ncommented ", "$text-muted"),
                cell(", ".join(issue.commented) or "nobody yet", 200),
                ("   not yet ", "$text-muted"),
                (cell(", ".join(issue.silent) or "-", 200), "$text-warning" if issue.silent else ""),
            ]
        if issue.rounds:
            decided = issue.outcome or "waits in 1 Decisions (enter)"
            parts += [
                ("\nround ", "$text-muted"),
                f"{issue.rounds}: ",
                (decided, "bold $text-warning"),
                f"  task {cell(issue.round_task, 64)}",
            ]
        if issue.problem:
            parts += [("\n! ", "bold $text-error"), cell(issue.problem, 400)]
    for problem in problems[:3]:
        parts += [("\n! ", "bold $text-error"), cell(problem, 300)]
    return Content.assemble(*parts)
