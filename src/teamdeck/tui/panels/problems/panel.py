"""Panel 8: every file the workspace could not read, live - the snapshot's ``problems``,
the list ``teamdeck status --json`` and ``teamdeck validate`` report - with the selected
one's whole line below (the list cuts long reasons to the width of the terminal).

A panel rather than a dialog: it is drawn from each new snapshot as the other panels
are, so it follows files breaking and being fixed with no reader of its own, and it
gets the number key, the ``/`` filter and the palette's "Go to Problems" with them.
``enter`` opens the line in the text view, where ``v`` shows it raw."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Static

from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.panels.problems import KEYS
from teamdeck.tui.panels.problems.problem_list import ProblemList, problem_keys
from teamdeck.tui.render import cell, show_content
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.snapshot.workspace import Problem, WorkspaceSnapshot

EMPTY = "no problems: every file of the workspace reads"
DETAIL_CHARS = 4000
"""The most of one problem's line the detail shows (a reason quotes the file at most a little)."""


class ProblemsPanel(Panel):
    """The problems with the selected one's whole line."""

    LIST = "#problem-list"
    BINDINGS = KEYS.bindings()

    def compose(self) -> ComposeResult:
        yield ProblemList(empty=EMPTY, id="problem-list")
        yield Static(id="problem-detail", classes="detail")

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        self.snapshot = snapshot
        self.query_one(ProblemList).show(snapshot.problems)
        self._show_detail()

    @property
    def selected(self) -> Problem | None:
        key = self.query_one(ProblemList).current_key
        if self.snapshot is None or key is None:
            return None
        problems = self.snapshot.problems
        return next((problem for problem, at in zip(problems, problem_keys(problems), strict=True) if at == key), None)

    @on(LineList.Highlighted, "#problem-list")
    def _show_detail(self) -> None:
        show_content(self.query_one("#problem-detail", Static), problem_detail(self.selected))
        self.selection_moved()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "read":
            return True if self.selected is not None else None
        return True

    def action_read(self) -> None:
        problem = self.selected
        if problem is not None:
            title = Content.assemble(("Problem in ", "bold"), (cell(problem.path, 120), "bold $accent"))
            self.app.push_screen(TextScreen(title, problem.text))

    @on(LineList.Chosen, "#problem-list")
    def _chosen(self) -> None:
        self.action_read()


def problem_detail(problem: Problem | None) -> Content:
    """The whole line of ``problem``, as ``teamdeck status`` prints it (the file, the
    place in it, what is wrong; sanitised, one line that the pane wraps)."""
    return Content(cell(problem.text, DETAIL_CHARS)) if problem is not None else Content("")
