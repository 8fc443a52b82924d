"""Moving a task by hand: a picker of the states the lifecycle table allows from its
current state, a reason, confirm or cancel (``teamdeck task transition``)."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from teamdeck.tui.host import deck_host

STATE_HELP = {
    "approved": "approved: may start once its dependencies are done",
    "working": "working: a worker is on it (seed: RUNNING)",
    "input-required": "input-required: blocked, waits for a person (seed: BLOCKED)",
    "verifying": "verifying: handed to a guardian",
    "guard-review": "guard-review: the guardian is checking it",
    "verified": "verified: the guardian passed it",
    "done": "done: finished (final)",
    "failed": "failed: given up (final)",
    "canceled": "canceled: not to be done (final)",
}


@dataclass(frozen=True)
class Transition:
    """The state picked and the reason typed (None when empty)."""

    state: str
    reason: str | None


class TransitionScreen(ModalScreen[Transition | None]):
    """Pick the next state of a task. Dismisses with :class:`Transition` or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="transition-cancel")]

    def __init__(self, title: Content, body: Content, states: list[str]) -> None:
        super().__init__()
        self.title_content = title
        self.body = body
        self.states = states

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static(self.title_content, classes="dialog--title")
            yield Static(self.body, classes="dialog--header")
            yield Label("Move to (the states the lifecycle allows from here)", classes="dialog--label")
            yield OptionList(
                *(Option(Content(STATE_HELP.get(state, state)), id=state) for state in self.states), id="states"
            )
            yield Label("Reason (optional)", classes="dialog--label")
            yield Input(id="reason", placeholder="reason")
            with Horizontal(classes="dialog--buttons"):
                yield Button("Move", id="confirm", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        deck_host(self).apply_cursor_blink(self)
        options = self.query_one("#states", OptionList)
        options.highlighted = 0
        options.focus()

    @on(OptionList.OptionSelected, "#states")
    def _picked(self) -> None:
        self.query_one("#reason", Input).focus()

    @on(Button.Pressed, "#confirm")
    @on(Input.Submitted, "#reason")
    def _confirm(self) -> None:
        options = self.query_one("#states", OptionList)
        if options.highlighted is None:
            return
        state = self.states[options.highlighted]
        reason = self.query_one("#reason", Input).value.strip()
        self.dismiss(Transition(state, reason or None))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
