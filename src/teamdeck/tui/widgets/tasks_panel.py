"""Panel 4: every task - state, gates, workers - and the selected task's workers,
gates and joined summary (Markdown, links never opened by a click). ``j`` joins again."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static

from teamdeck.errors import TeamdeckError
from teamdeck.store.files import read_optional
from teamdeck.tui import actions
from teamdeck.tui.render import block, cell
from teamdeck.tui.typed import deck, main_screen
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.task_lifecycle import LIFECYCLE_WRITES, TaskLifecycleKeys
from teamdeck.tui.widgets.task_list import TaskList
from teamdeck.view.snapshot import TaskView, WorkspaceSnapshot

SUMMARY_CHARS = 200_000


class TasksPanel(Vertical, TaskLifecycleKeys):
    """The task list with the selected task's details and joined summary (and the
    lifecycle keys of tui/widgets/task_lifecycle.py)."""

    BINDINGS = [
        Binding("j", "join", "Join again", id="task-join"),
        Binding("enter", "read", "Summary", id="task-summary"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.snapshot: WorkspaceSnapshot | None = None
        self._summary_for: tuple[str, str] | None = None

    def compose(self) -> ComposeResult:
        yield TaskList(empty="no tasks: nothing under tasks/", id="task-list")
        with VerticalScroll(id="task-detail", classes="detail"):
            yield Static(id="task-detail-text")
            yield Markdown(id="task-summary", open_links=False)

    def focus_list(self) -> None:
        self.query_one(TaskList).focus()

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        self.snapshot = snapshot
        self.query_one(TaskList).show(snapshot.tasks)
        self._show_detail()

    @property
    def selected(self) -> TaskView | None:
        key = self.query_one(TaskList).current_key
        return self.snapshot.task(key) if self.snapshot is not None and key else None

    @on(LineList.Highlighted, "#task-list")
    def _show_detail(self) -> None:
        task = self.selected
        self.query_one("#task-detail-text", Static).update(task_detail(task) if task else Content(""))
        main_screen(self).update_bindings()
        stamp = (task.id, task.updated_at + str(task.summary_path)) if task else None
        if task is not None and task.summary_path and stamp != self._summary_for:
            self._summary_for = stamp
            self._load_summary(task.summary_path)
        elif task is None or not task.summary_path:
            self._summary_for = None
            self.query_one(Markdown).update("*no joined summary yet: press j to join*" if task else "")

    @work(thread=True, exclusive=True, group="summary", exit_on_error=False, description="read the joined summary")
    def _load_summary(self, relative: str) -> None:
        path = deck(self).ws.root / relative
        try:
            data = read_optional(path, shown=relative)
            text = data.decode("utf-8", "replace") if data is not None else "*the joined summary is gone*"
        except TeamdeckError as err:
            text = f"*could not read the joined summary: {cell(str(err), 300)}*"
        self.app.call_from_thread(self.query_one(Markdown).update, block(text, SUMMARY_CHARS))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.selected is None:
            return None
        if action in LIFECYCLE_WRITES or action == "verdicts":
            return self.lifecycle_state(action)
        if action == "join" and deck(self).read_only:
            return None
        return True

    def action_join(self) -> None:
        task = self.selected
        if task is not None and not deck(self).read_only:
            actions.join(deck(self), task.id)

    @on(LineList.Chosen, "#task-list")
    def action_read(self) -> None:
        self.query_one("#task-detail").focus()

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        """Links in a summary are agent text: shown, never opened."""
        event.prevent_default()
        self.app.notify(cell(f"not opened: {event.href}", 300), title="link", markup=False)


def task_detail(task: TaskView) -> Content:
    """The task's state, workers and gates (sanitised)."""
    parts: list[str | tuple[str, str]] = [
        (cell(task.id, 64), "bold"),
        f"  {cell(task.title, 200)}\n",
        ("state: ", "$text-muted"),
        f"{cell(task.state, 40)}",
        f"   team: {cell(task.team or '-', 64)}   revision {task.revision}\n",
    ]
    if task.problem is not None:
        parts += [("! ", "bold $error"), f"{cell(task.problem.text, 400)}\n"]
    for worker in task.workers:
        parts += [
            (f"  {cell(worker.id, 64)} ", "bold"),
            (f"{worker.status}", _status_style(worker.status)),
            f"  {cell(worker.summary, 200)}\n",
        ]
        parts += [f"      ? {cell(question, 300)}\n" for question in worker.questions]
        parts += [(f"      ! {cell(problem, 300)}\n", "$error") for problem in worker.problems]
    for gate in task.gates:
        decided = f" by {cell(gate.decided_by, 64)}" if gate.decided_by else ""
        note = f": {cell(gate.note, 200)}" if gate.note else ""
        parts += [
            ("  gate ", "$text-muted"),
            (cell(gate.gate_id, 64), "bold"),
            (f" {gate.state}", "$warning" if gate.open else "$text-muted"),
            f"{decided}{note}\n",
        ]
    return Content.assemble(*parts)


def _status_style(status: str) -> str:
    return {"blocked": "$warning", "failed": "$error", "invalid": "$error", "completed": "$success"}.get(status, "")
