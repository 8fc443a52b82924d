"""Panel 6: coordinator plans (seed 002). The plan list on top; below, the selected
plan's state and next step, and its waves side by side as columns (each task's state,
verdict, gates, what it waits on and what waits on it). ``x`` runs the plan
(``teamdeck plan run``) after a confirmation."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import HorizontalScroll
from textual.content import Content
from textual.widgets import Static

from teamdeck.tui.host import deck_host
from teamdeck.tui.panels.plans import KEYS, actions
from teamdeck.tui.panels.plans.plan_list import PlanList
from teamdeck.tui.panels.plans.plan_wave import PlanWave
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.confirm_bar import Confirmed, ConfirmRequest, ask_confirm
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.snapshot.plans import PlanView
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

PLAN_STATE_STYLES = {
    "PLANNING": "$text-warning",
    "NEEDS_FIX": "$text-warning",
    "FAILED": "$text-error",
    "COMPLETED": "$text-success",
    "CANCELED": "$text-muted",
}


class PlansPanel(Panel):
    """The plan list with the selected plan's waves."""

    LIST = "#plan-list"
    BINDINGS = KEYS.bindings()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown: PlanView | None = None

    def compose(self) -> ComposeResult:
        yield PlanList(empty="no plans: teamdeck plan import FILE makes one", id="plan-list")
        yield Static(id="plan-header")
        yield HorizontalScroll(id="plan-waves")

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        self.snapshot = snapshot
        self.query_one(PlanList).show(snapshot.plans)
        self._show_detail()

    @property
    def selected(self) -> PlanView | None:
        key = self.query_one(PlanList).current_key
        return self.snapshot.plan(key) if self.snapshot is not None and key else None

    @on(LineList.Highlighted, "#plan-list")
    def _show_detail(self) -> None:
        plan = self.selected
        if plan is self._shown and plan is not None:
            return
        self._shown = plan
        self.query_one("#plan-header", Static).update(plan_header(plan) if plan else Content(""))
        self._show_waves(plan)
        self.selection_moved()

    def _show_waves(self, plan: PlanView | None) -> None:
        box = self.query_one("#plan-waves", HorizontalScroll)
        waves = plan.waves if plan is not None else ()
        columns = list(box.query_children(PlanWave).results())
        if len(columns) != len(waves):
            box.remove_children()
            columns = [PlanWave(classes="plan-wave") for _ in waves]
            box.mount_all(columns)
        if plan is None:
            return
        titles = {task.id: task.title for task in plan.tasks}
        waited_on_by: dict[str, list[str]] = {}
        for task in plan.tasks:
            for dependency in task.depends_on:
                waited_on_by.setdefault(dependency, []).append(task.id)
        for number, (column, tasks) in enumerate(zip(columns, waves, strict=True), 1):
            column.show(
                number,
                tasks,
                current=number == plan.current_wave and plan.state not in ("COMPLETED", "CANCELED", "FAILED"),
                waited_on_by=waited_on_by,
                titles=titles,
            )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        plan = self.selected
        if plan is None:
            return None
        if action == "run" and (deck_host(self).read_only or not actions.plan_allows_run(plan)):
            return None
        return True

    def action_read(self) -> None:
        self.query_one("#plan-waves").focus()

    @on(LineList.Chosen, "#plan-list")
    def _chosen(self) -> None:
        self.action_read()

    def action_run(self) -> None:
        plan = self.selected
        if plan is None or deck_host(self).read_only or not actions.plan_allows_run(plan):
            return
        title = Content.assemble(("Run plan ", "bold"), (cell(plan.id, 64), "bold $accent"))
        body = Content.assemble(
            plan_header(plan),
            "\n\nMoves the plan as far as it can go now (",
            ("teamdeck plan run", "bold"),
            "): approves its tasks, starts the current wave, joins reports, verifies a complete wave with the "
            "guardians and marks passed tasks done. Tasks without a worker are delegated to the members below, in turn.",
        )
        request = ConfirmRequest(
            title, body, confirm="Run", note="optional", note_label="Delegate to (members, space-separated)"
        )

        def confirmed(result: Confirmed | None) -> None:
            if result is not None:
                members = (result.note or "").replace(",", " ").split()
                self.app.post_message(actions.run_plan(plan, members))

        ask_confirm(self, request, confirmed)


def plan_header(plan: PlanView) -> Content:
    """The plan's state, wave, approval, next step (sanitised)."""
    waves = len(plan.waves)
    wave = f"wave {plan.current_wave} of {waves}" if plan.current_wave else f"{waves} waves, not started"
    parts: list[str | tuple[str, str]] = [
        (cell(plan.id, 64), "bold"),
        f"  {cell(plan.title, 120)}   ",
        ("state ", "$text-muted"),
        (plan.state, f"bold {PLAN_STATE_STYLES.get(plan.state, '$text-accent')}"),
        f"   {wave}   ",
        ("done ", "$text-muted"),
        f"{plan.done()}/{len(plan.tasks)}\n",
        ("next: ", "bold $accent"),
        f"{cell(plan.next_step, 300)}\n",
        ("approval ", "$text-muted"),
        f"{plan.approval or '-'}   ",
        ("coordinator ", "$text-muted"),
        f"{cell(plan.coordinator, 64)} ({cell(plan.coordinator_state, 40)})   ",
        ("team ", "$text-muted"),
        cell(plan.team or "-", 64),
    ]
    if plan.problem:
        parts += [("\n! ", "bold $text-error"), cell(plan.problem, 400)]
    return Content.assemble(*parts)
