"""One wave of a plan as a column: each task's state, its last verdict, the gates that
wait for a person, what it still waits on and what waits on it."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from teamdeck.protocol.plans.overview import PlanTaskRow
from teamdeck.tui.render import cell

STATE_MARKS = {
    "done": ("✔", "$text-success"),
    "verified": ("✔", "$text-success"),
    "working": ("●", "$text-accent"),
    "verifying": ("◎", "$text-accent"),
    "guard-review": ("◎", "$text-accent"),
    "input-required": ("■", "$text-warning"),
    "failed": ("✘", "$text-error"),
    "canceled": ("–", "$text-muted"),
    "approved": ("○", ""),
    "planned": ("○", "$text-muted"),
}
VERDICT_STYLES = {"PASS": "$text-success", "FAIL": "bold $text-error", "NEEDS_CHANGES": "$text-warning"}
GATE_LABELS = {"verification-failed": "FAIL gate", "worker-blocked": "question", "plan-approval": "approval"}


class PlanWave(Static):
    """A column of the plan view (its content is set by :meth:`show`)."""

    def show(
        self,
        number: int,
        tasks: tuple[PlanTaskRow, ...],
        *,
        current: bool,
        waited_on_by: dict[str, list[str]],
        titles: dict[str, str],
    ) -> None:
        """Draw wave ``number``.

        Args:
            number: the wave (1-based).
            tasks: its tasks in plan order.
            current: it is the wave being executed or verified.
            waited_on_by: task id -> the tasks that depend on it.
            titles: task id -> title, to name dependencies shortly.
        """
        self.set_class(current, "-current")
        self.update(wave_content(number, tasks, current=current, waited_on_by=waited_on_by, titles=titles))


def wave_content(
    number: int,
    tasks: tuple[PlanTaskRow, ...],
    *,
    current: bool,
    waited_on_by: dict[str, list[str]],
    titles: dict[str, str],
) -> Content:
    """The column's text (sanitised)."""
    done = sum(task.state == "done" for task in tasks)
    parts: list[str | tuple[str, str]] = [
        (f"Wave {number}", "bold"),
        (" ▶ current" if current else "", "bold $accent"),
        (f"  {done}/{len(tasks)} done\n", "$text-muted"),
    ]
    for task in tasks:
        mark, style = STATE_MARKS.get(task.state, ("?", "$text-error"))
        parts += [
            "\n",
            (f"{mark} ", style),
            (cell(task.title, 60), "bold"),
            "\n",
            ("  ", ""),
            (cell(task.id, 64), "$text-muted"),
            "\n",
            "  ",
            (task.state, style),
        ]
        if task.verdict:
            parts += ["  verdict ", (task.verdict, VERDICT_STYLES.get(task.verdict, ""))]
        parts.append("\n")
        for gate_id, kind in task.gates:
            parts += [
                ("  ⚑ ", "$text-warning"),
                (GATE_LABELS.get(kind, kind), "bold $text-warning"),
                (" waits\n", "$text-warning"),
                ("    ", ""),
                (cell(gate_id, 40), "$text-muted"),
                "\n",
            ]
        if task.waiting_on:
            names = ", ".join(cell(titles.get(dependency, dependency), 40) for dependency in task.waiting_on)
            parts += [("  waits on ", "$text-muted"), f"{names}\n"]
        blocked = waited_on_by.get(task.id, []) if task.state != "done" else []
        if blocked:
            parts += [
                ("  blocks ", "$text-muted"),
                ", ".join(cell(titles.get(other, other), 40) for other in blocked),
                "\n",
            ]
        if task.workers:
            parts += [("  ", ""), (", ".join(cell(worker, 60) for worker in task.workers), "$text-muted"), "\n"]
        if task.problem:
            parts += [("  ! ", "bold $text-error"), f"{cell(task.problem, 200)}\n"]
    return Content.assemble(*parts)
