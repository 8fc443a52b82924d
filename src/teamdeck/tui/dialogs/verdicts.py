"""A task's verdict history (seed 003's ``/tasks/{id}/verdicts``): every
GuardianVerdictSnapshot, newest first, with its flags, evidence and recommendations.
Everything in it came from a guardian, so every string is sanitised into Content."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from teamdeck.tui.render import block, cell
from teamdeck.view.snapshot.plans import TaskVerdicts, VerdictView

STATUS_STYLES = {"PASS": "bold $text-success", "FAIL": "bold $text-error", "NEEDS_CHANGES": "bold $text-warning"}
SEVERITY_STYLES = {"fail": "$text-error", "needs-changes": "$text-warning", "info": "$text-muted"}
EVIDENCE_CHARS = 2000


class VerdictsScreen(ModalScreen[None]):
    """The verdict history of one task, scrollable."""

    BINDINGS = [Binding("escape,q,v", "close", "Close", id="verdicts-close")]

    def __init__(self, task_id: str, history: TaskVerdicts | None) -> None:
        super().__init__()
        self.task_id = task_id
        self.history = history

    def compose(self) -> ComposeResult:
        count = len(self.history.verdicts) if self.history else 0
        title = Content.assemble(
            ("Verdicts of ", "bold"),
            (cell(self.task_id, 64), "bold $accent"),
            f"  ({count} verdict{'s' if count != 1 else ''}, newest first)",
        )
        with Vertical(id="dialog", classes="dialog dialog--wide dialog--tall"):
            yield Static(title, classes="dialog--title")
            with VerticalScroll(id="verdicts-scroll", classes="dialog--body"):
                yield Static(history_content(self.history), id="verdicts-body")
            yield Footer()

    def on_mount(self) -> None:
        self.query_one("#verdicts-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)


def history_content(history: TaskVerdicts | None) -> Content:
    """The whole history, newest first (sanitised)."""
    if history is None or (not history.verdicts and not history.problems):
        return Content.styled("never verified: no verdict yet (g verifies the task)", "italic $text-muted")
    parts: list[Content] = [verdict_content(verdict) for verdict in reversed(history.verdicts)]
    parts += [Content.styled(f"! {cell(problem, 400)}", "$text-error") for problem in history.problems]
    return Content("\n").join(parts)


def verdict_content(verdict: VerdictView) -> Content:
    """One verdict: status, guardian, when, flags, evidence, recommendations."""
    parts: list[str | tuple[str, str]] = [
        (f"{verdict.status:<13}", STATUS_STYLES.get(verdict.status, "bold")),
        (f" {cell(verdict.guardian, 40)}", "bold"),
        f"  {cell(verdict.created_at, 40)}",
        (
            f"  {verdict.duration_s:.2f}s  {cell(verdict.id, 64)}  (assignment {cell(verdict.assignment, 64)})\n",
            "$text-muted",
        ),
    ]
    if verdict.flags:
        parts.append(("  flags\n", "$text-muted"))
    for flag in verdict.flags:
        where = f" [{cell(flag.path, 120)}]" if flag.path else ""
        parts += [
            ("    ", ""),
            (f"{cell(flag.severity, 20)} {cell(flag.code, 40)}", SEVERITY_STYLES.get(flag.severity, "")),
            f"{where}: {cell(flag.message, 400)}\n",
        ]
    if verdict.evidence:
        parts.append(("  evidence\n", "$text-muted"))
    for key, value in verdict.evidence:
        text = block(value, EVIDENCE_CHARS)
        if "\n" in text.strip():
            indented = "\n".join(f"      {line}" for line in text.strip("\n").splitlines())
            parts += [(f"    {cell(key, 40)}:\n", "bold"), f"{indented}\n"]
        else:
            parts += [(f"    {cell(key, 40)}: ", "bold"), f"{cell(value, 300)}\n"]
    if verdict.recommendations:
        parts.append(("  recommendations\n", "$text-muted"))
    parts += [f"    - {cell(recommendation, 400)}\n" for recommendation in verdict.recommendations]
    return Content.assemble(*parts)
