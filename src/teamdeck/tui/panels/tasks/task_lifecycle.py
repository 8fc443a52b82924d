"""The lifecycle keys of a task, mixed into the tasks panel: ``v`` its verdict
history, ``t`` move it (a picker of the legal next states), ``g`` verify it with its
guardian, ``R`` retry it, ``x`` cancel it. Every write is confirmed in the confirm bar and
posted as a :class:`RunAction` (tui/panels/tasks/actions.py) that the app's action runner runs;
in read-only mode the writes show disabled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content
from textual.widget import Widget

from teamdeck.protocol.task.allowed import next_states
from teamdeck.tui.dialogs.transition import Transition, TransitionScreen
from teamdeck.tui.dialogs.verdicts import VerdictsScreen
from teamdeck.tui.host import deck_host
from teamdeck.tui.messages import RunAction
from teamdeck.tui.panels.tasks import actions as task_actions
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.confirm_bar import Confirmed, ConfirmRequest, NoteRule, ask_confirm
from teamdeck.view.snapshot.workspace import TaskView

LIFECYCLE_WRITES = frozenset({"transition", "verify", "retry", "cancel_task"})
WHAT_HAPPENS = {
    "verify": "Runs the task's guardian in a child process (stopped at its timeout) and applies the verdict: "
    "PASS → verified, NEEDS_CHANGES → working (the recommendations go to its workers), "
    "FAIL → input-required with a FAIL gate in the decisions queue.",
    "retry": "Approves the task's FAIL gates (note: retry) and sends it back to working, so it can be verified again.",
    "cancel_task": "Cancels the task (final) and closes its open gates with the reason.",
}


def protocol_action(action: str) -> str:
    """The protocol's name (protocol/task/allowed.py's TASK_ACTIONS) of lifecycle key
    ``action`` (``cancel_task``: ``cancel``, a name the panels' own cancel keys took)."""
    return "cancel" if action == "cancel_task" else action


class TaskLifecycleKeys(Widget):
    """Mixin for a panel with a ``selected`` :class:`TaskView` and a ``snapshot``. List it
    after the panel's container class (``class P(Vertical, TaskLifecycleKeys)``): Textual
    takes CSS from the first base only, bindings from every base."""

    selected: Any
    snapshot: Any

    def lifecycle_state(self, action: str) -> bool | None:
        """``check_action`` for the lifecycle actions: None (shown disabled) when no task
        is selected, writes are off, or the table does not allow it from its state."""
        task: TaskView | None = self.selected
        if task is None:
            return None
        if action == "verdicts":
            return True
        if deck_host(self).read_only:
            return None
        return True if task_actions.task_allows(task, protocol_action(action)) else None

    def lifecycle_why_not(self, action: str) -> str | None:
        """Why lifecycle write ``action`` is greyed for the selected task (its state, its
        gates), or None when the reason is not the task's (none selected, read-only)."""
        task: TaskView | None = self.selected
        if task is None or deck_host(self).read_only:
            return None
        return task_actions.why_not(task, protocol_action(action))

    def action_verdicts(self) -> None:
        task: TaskView | None = self.selected
        if task is not None:
            self.app.push_screen(VerdictsScreen(task.id, self.snapshot.verdicts.get(task.id)))

    def action_transition(self) -> None:
        task = self._writable("transition")
        if task is None:
            return
        title = Content.assemble(("Move task ", "bold"), (cell(task.id, 64), "bold $accent"))
        screen = TransitionScreen(title, task_summary(task), next_states(task.state))

        def picked(result: Transition | None) -> None:
            if result is not None:
                self.app.post_message(task_actions.move(task, result.state, result.reason))

        self.app.push_screen(screen, picked)

    def action_verify(self) -> None:
        self._confirm("verify", "Verify", task_actions.verify_task, note="optional", note_label="Reason")

    def action_retry(self) -> None:
        self._confirm("retry", "Retry", task_actions.retry_task, note="optional", note_label="Note")

    def action_cancel_task(self) -> None:
        self._confirm(
            "cancel",
            "Cancel task",
            task_actions.cancel_task,
            note="optional",
            note_label="Reason",
            danger=True,
            what="cancel_task",
        )

    def _writable(self, action: str) -> TaskView | None:
        task: TaskView | None = self.selected
        if task is None or deck_host(self).read_only or not task_actions.task_allows(task, action):
            return None
        return task

    def _confirm(
        self,
        action: str,
        verb: str,
        run: Callable[[TaskView, str | None], RunAction],
        *,
        note: NoteRule,
        note_label: str,
        danger: bool = False,
        what: str | None = None,
    ) -> None:
        task = self._writable(action)
        if task is None:
            return
        title = Content.assemble((f"{verb} ", "bold"), (cell(task.id, 64), "bold $accent"))
        body = Content.assemble(task_summary(task), "\n\n", WHAT_HAPPENS[what or action])
        request = ConfirmRequest(title, body, confirm=verb, note=note, note_label=note_label, danger=danger)

        def confirmed(result: Confirmed | None) -> None:
            if result is not None:
                self.app.post_message(run(task, result.note))

        ask_confirm(self, request, confirmed)


def task_summary(task: TaskView) -> Content:
    """``id  title`` and ``state`` with the open gates (sanitised)."""
    gates = ", ".join(cell(gate.gate_id, 40) for gate in task.open_gates)
    return Content.assemble(
        (cell(task.id, 64), "bold"),
        f"  {cell(task.title, 120)}\n",
        ("state ", "$text-muted"),
        (task.state, "bold"),
        (f"   open gates: {gates}" if gates else "", "$text-warning"),
    )
