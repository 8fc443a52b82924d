"""Reassigning a team's Claude Code task: a picker of the team's members; ``enter`` on
one (or Reassign) reassigns, ``escape`` (or Cancel) does not
(``teamdeck team task TEAM ID --owner MEMBER``)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, OptionList, Static
from textual.widgets.option_list import Option

from teamdeck.tui.host import deck_host
from teamdeck.tui.render import cell
from teamdeck.view.snapshot.workspace import MemberView


class ReassignScreen(ModalScreen[str | None]):
    """Pick the task's new owner. Dismisses with the member's name, or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="reassign-cancel")]

    def __init__(self, title: Content, body: Content, members: list[MemberView], current: str | None = None) -> None:
        super().__init__()
        self.title_content = title
        self.body = body
        self.members = members
        self.current = current
        """The present owner: the picker starts on the first teammate that is not it."""

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog"):
            yield Static(self.title_content, classes="dialog--title")
            yield Static(self.body, classes="dialog--header")
            yield Label("New owner (it is sent a task_assignment)", classes="dialog--label")
            yield OptionList(
                *(
                    Option(Content(f"{cell(member.name, 40)}  ({member.status})"), id=f"m{index}")
                    for index, member in enumerate(self.members)
                ),
                id="members",
            )
            with Horizontal(classes="dialog--buttons"):
                yield Button("Reassign", id="confirm", variant="primary")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        deck_host(self).apply_cursor_blink(self)
        options = self.query_one("#members", OptionList)
        others = [
            index
            for index, member in enumerate(self.members)
            if not member.lead and member.name.lower() != (self.current or "").lower()
        ]
        options.highlighted = others[0] if others else (0 if self.members else None)
        options.focus()

    @on(OptionList.OptionSelected, "#members")
    def _picked(self) -> None:
        """``enter`` on a member reassigns to it (the dialog is the confirmation)."""
        self._confirm()

    @on(Button.Pressed, "#confirm")
    def _confirm(self) -> None:
        options = self.query_one("#members", OptionList)
        if options.highlighted is None:
            return
        self.dismiss(self.members[options.highlighted].name)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
