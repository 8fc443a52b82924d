"""Panel 4: every task - state, gates, workers - and the selected task's workers,
gates and joined summary (Markdown, links never opened by a click). ``j`` joins again.

Below teamdeck's tasks, each team's Claude Code task list: select one of its
tasks to read it; ``o`` reassigns it (a picker of the team's members) and ``p`` marks
it pending again (confirmed first) - the fix for a stalled task."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static

from teamdeck.errors import TeamdeckError
from teamdeck.tui.dialogs.reassign import ReassignScreen
from teamdeck.tui.host import deck_host
from teamdeck.tui.panels.tasks import KEYS, actions, team_task_actions
from teamdeck.tui.panels.tasks.task_lifecycle import LIFECYCLE_WRITES, TaskLifecycleKeys
from teamdeck.tui.panels.tasks.task_list import TaskList
from teamdeck.tui.render import block, cell
from teamdeck.tui.widgets.confirm_bar import Confirmed, ConfirmRequest, ask_confirm
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.snapshot.workspace import TaskView, TeamTaskView, WorkspaceSnapshot

SUMMARY_CHARS = 200_000
TEAM_TASK_WRITES = frozenset({"reassign", "mark_pending"})


class TasksPanel(Panel, TaskLifecycleKeys):
    """The task list with the selected task's details and joined summary (and the
    lifecycle keys of tui/panels/tasks/task_lifecycle.py)."""

    LIST = "#task-list"
    BINDINGS = KEYS.bindings()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._summary_for: tuple[str, str] | None = None

    def compose(self) -> ComposeResult:
        yield TaskList(empty="no tasks: nothing under tasks/", id="task-list")
        with VerticalScroll(id="task-detail", classes="detail"):
            yield Static(id="task-detail-text")
            yield Markdown(id="task-summary", open_links=False)

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        self.snapshot = snapshot
        self.query_one(TaskList).show(snapshot.tasks, snapshot.team_tasks)
        self._show_detail()

    @property
    def selected(self) -> TaskView | None:
        key = self.query_one(TaskList).current_key
        return self.snapshot.task(key) if self.snapshot is not None and key else None

    @property
    def selected_team_task(self) -> TeamTaskView | None:
        """The selected task of a team's Claude Code task list, if that is what is selected."""
        key = self.query_one(TaskList).current_key
        return self.snapshot.team_task(key) if self.snapshot is not None and key and "#" in key else None

    @on(LineList.Highlighted, "#task-list")
    def _show_detail(self) -> None:
        team_task = self.selected_team_task
        if team_task is not None:
            self._summary_for = None
            self.query_one("#task-detail-text", Static).update(team_task_detail(team_task))
            self.query_one(Markdown).update("")
            self.selection_moved()
            return
        task = self.selected
        self.query_one("#task-detail-text", Static).update(task_detail(task) if task else Content(""))
        self.selection_moved()
        stamp = (task.id, task.updated_at + str(task.summary_path)) if task else None
        if task is not None and task.summary_path and stamp != self._summary_for:
            self._summary_for = stamp
            self._load_summary(task.id, task.summary_path)
        elif task is None or not task.summary_path:
            self._summary_for = None
            self.query_one(Markdown).update("*no joined summary yet: press j to join*" if task else "")

    @work(thread=True, exclusive=True, group="summary", exit_on_error=False, description="read the joined summary")
    def _load_summary(self, task_id: str, relative: str) -> None:
        from teamdeck.protocol.task.join import read_joined_summary  # the join's modules: on this worker, when needed

        try:
            text = read_joined_summary(deck_host(self).ws, task_id) or "*the joined summary is gone*"
        except TeamdeckError as err:
            text = f"*could not read the joined summary: {cell(str(err), 300)}*"
        self.app.call_from_thread(self._show_summary, relative, block(text, SUMMARY_CHARS))

    def _show_summary(self, relative: str, text: str) -> None:
        """Show a summary that was read, unless the selection moved off its task meanwhile."""
        if self._summary_for is not None and self._summary_for[1].endswith(relative):
            self.query_one(Markdown).update(text)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # The footer shows the keys of what is selected: a team task's (o, p) or a
        # teamdeck task's; the other kind's are hidden (False), not shown disabled.
        team_task = self.selected_team_task
        if action in TEAM_TASK_WRITES:
            if team_task is None:
                return False
            if deck_host(self).read_only or not team_task_actions.allows(team_task, action):
                return None
            return True
        if team_task is not None:
            return False
        if self.selected is None:
            return None
        if action in LIFECYCLE_WRITES or action == "verdicts":
            return self.lifecycle_state(action)
        if action == "join" and deck_host(self).read_only:
            return None
        return True

    def why_disabled(self, action: str) -> str:
        why = self.lifecycle_why_not(action) if action in LIFECYCLE_WRITES else None
        return why or super().why_disabled(action)

    def action_join(self) -> None:
        task = self.selected
        if task is not None and not deck_host(self).read_only:
            self.app.post_message(actions.join(task.id))

    def action_reassign(self) -> None:
        task = self._writable_team_task("reassign")
        if task is None or self.snapshot is None:
            return
        team = self.snapshot.team(task.team)
        members = [member for member in team.members if member.active] if team is not None else []
        title = Content.assemble(("Reassign task ", "bold"), (f"#{cell(task.id, 12)}", "bold $accent"))
        screen = ReassignScreen(title, team_task_summary(task), members, current=task.owner)

        def picked(member: str | None) -> None:
            if member is not None:
                self.app.post_message(team_task_actions.reassign(task, member))

        self.app.push_screen(screen, picked)

    def action_mark_pending(self) -> None:
        task = self._writable_team_task("mark_pending")
        if task is None:
            return
        title = Content.assemble(("Mark pending ", "bold"), (f"#{cell(task.id, 12)}", "bold $accent"))
        body = Content.assemble(
            team_task_summary(task),
            "\n\nSets its status back to pending in Claude Code's task list (the owner is kept), "
            "so it can be picked up again.",
        )
        request = ConfirmRequest(title, body, confirm="Mark pending")

        def confirmed(result: Confirmed | None) -> None:
            if result is not None:
                self.app.post_message(team_task_actions.mark_pending(task))

        ask_confirm(self, request, confirmed)

    def _writable_team_task(self, action: str) -> TeamTaskView | None:
        task = self.selected_team_task
        if task is None or deck_host(self).read_only or not team_task_actions.allows(task, action):
            return None
        return task

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
    if not task.outputs_checked:
        parts.append(("  checking the workers' outputs…\n", "$text-muted"))
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


def team_task_summary(task: TeamTaskView) -> Content:
    """``#id  subject`` and ``status, owner`` (sanitised)."""
    return Content.assemble(
        (f"#{cell(task.id, 12)}", "bold"),
        f"  {cell(task.subject, 120)}\n",
        ("team ", "$text-muted"),
        cell(task.team, 64),
        ("   status ", "$text-muted"),
        (cell(task.status, 20), "bold"),
        ("   owner ", "$text-muted"),
        cell(task.owner or "-", 40),
        (f"\nSTALLED: {cell(task.stalled, 200)}" if task.stalled else "", "bold $warning"),
    )


def team_task_detail(task: TeamTaskView) -> Content:
    """A team task: what it is, who has it, what blocks it, its description (sanitised)."""
    parts: list[str | tuple[str, str]] = [
        (f"#{cell(task.id, 12)}", "bold"),
        f"  {cell(task.subject, 200)}\n",
        ("status: ", "$text-muted"),
        (cell(task.status, 20), TEAM_TASK_TEXT_STYLES.get(task.status, "")),
        f"   owner: {cell(task.owner or '-', 40)}   team: {cell(task.team, 64)}\n",
    ]
    if task.stalled:
        parts += [("! stalled: ", "bold $warning"), f"{cell(task.stalled, 200)} (o reassigns, p marks it pending)\n"]
    if task.reported:
        parts += [("reported: ", "bold $success"), f"{cell(task.reported, 200)} (task_completed; the file not yet)\n"]
    if task.active_form:
        parts += [("doing: ", "$text-muted"), f"{cell(task.active_form, 200)}\n"]
    if task.blocked_by:
        parts += [("blocked by: ", "$text-muted"), ", ".join(f"#{cell(other, 12)}" for other in task.blocked_by), "\n"]
    if task.blocks:
        parts += [("blocks: ", "$text-muted"), ", ".join(f"#{cell(other, 12)}" for other in task.blocks), "\n"]
    parts += [("file: ", "$text-muted"), f"{cell(task.path, 200)}\n\n", block(task.description, DESCRIPTION_CHARS)]
    return Content.assemble(*parts)


TEAM_TASK_TEXT_STYLES = {"in_progress": "$accent", "completed": "$success", "deleted": "$text-muted"}
DESCRIPTION_CHARS = 20_000


def _status_style(status: str) -> str:
    return {"blocked": "$warning", "failed": "$error", "invalid": "$error", "completed": "$success"}.get(status, "")
