"""The lifecycle's entries in the command palette: per task, its verdicts and
the moves its state allows (move, verify, retry, cancel); per plan, run it; per FAIL
gate, retry or give up. Each opens the same confirmation as its key. Writes are left
out in read-only mode, as the palette does for every other write."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from teamdeck.tui import task_actions
from teamdeck.tui.render import cell

if TYPE_CHECKING:
    from teamdeck.tui.app import TeamdeckApp

Command = tuple[str, Callable[[], object], str]
TASK_COMMANDS = (
    # (action on the tasks panel, what task_actions.task_allows checks, name, key)
    ("transition", "transition", "Move task {} to another state", "t"),
    ("verify", "verify", "Verify task {} with its guardian", "g"),
    ("retry", "retry", "Retry task {}", "R"),
    ("cancel_task", "cancel", "Cancel task {}", "x"),
)
LISTS = {"gates": "#gate-list", "tasks": "#task-list", "plans": "#plan-list"}


def item_commands(app: TeamdeckApp) -> list[Command]:
    """The palette's lifecycle commands for the snapshot on screen."""
    snapshot = app.snapshot
    if snapshot is None:
        return []
    main = app.main
    writable = not app.read_only
    commands: list[Command] = [("Go to Plans", lambda: main.action_panel("plans"), "6")]
    for task in snapshot.tasks:
        name = cell(task.id, 64)
        commands.append((f"Verdicts of task {name}", _on_item(main, "tasks", task.id, "verdicts"), "v"))
        if writable:
            commands += [
                (label.format(name), _on_item(main, "tasks", task.id, action), key)
                for action, check, label, key in TASK_COMMANDS
                if task_actions.task_allows(task, check)
            ]
    for plan in snapshot.plans:
        name = cell(plan.id, 64)
        commands.append((f"Show plan {name}", _on_item(main, "plans", plan.id, "read"), "enter"))
        if writable and task_actions.plan_allows_run(plan):
            commands.append((f"Run plan {name} (plan run)", _on_item(main, "plans", plan.id, "run"), "x"))
    if writable:
        for gate in snapshot.gates:
            if gate.subkind == "verification-failed":
                label = cell(f"{gate.gate_id} (task {gate.task_id})", 120)
                commands.append((f"Retry FAIL gate {label}", _on_item(main, "gates", gate.key, "retry"), "a"))
                commands.append((f"Give up at FAIL gate {label}", _on_item(main, "gates", gate.key, "give_up"), "r"))
    return commands


def _on_item(main: Any, panel: str, key: str, action: str) -> Callable[[], None]:
    """Select ``key`` in ``panel``'s list, then run ``action`` on it."""

    def run() -> None:
        main.action_panel(panel)
        widget = main.query_one(f"#{panel}-panel")
        widget.query_one(LISTS[panel]).select_key(key)
        getattr(widget, f"action_{action}")()

    return run
