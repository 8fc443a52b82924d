"""The confirm bar: every destructive or outward action (approve, reject, retry, give
up, allow, deny, resend, force offline, shutdown, deactivate, verify, cancel, mark
pending, plan run) asks here, docked over the bottom of the main screen just above the
footer, instead of in a dialog screen pushed over it: the question, what will happen
(for a decision, its whole detail: the questions stay readable while the answer is
typed), an optional or required note; ``enter`` confirms, ``esc`` cancels. It lies on
its own layer, so showing and hiding it lays nothing else out again (the approve key
reaches the disk and the screen sooner), and nothing is pushed or popped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Input, Label, Static

NoteRule = Literal["none", "optional", "required"]
ANSWERED_S = 0.25
"""The longest an answered bar stays drawn, waiting for the answer to be drawn."""


@dataclass(frozen=True)
class Confirmed:
    """The person confirmed; ``note`` is what they typed (None when empty or not asked)."""

    note: str | None


@dataclass(frozen=True)
class ConfirmRequest:
    """What to ask.

    Attributes:
        title: the question ("Approve gate g1?").
        body: what will happen, and what the person decides on.
        confirm: the verb of the confirmation ("Approve").
        note: whether a note is asked, and whether it may be empty.
        note_label: what the note is called ("Reason", "Feedback").
        danger: the action cannot be undone or hurts (drawn in the error colour).
        subject: what the answer acts on, sanitised (``gate g1 of task t1``; ``""``:
            the title says it): it heads the title and is named again by the Enter
            hint, so the person reads which one Enter answers right where they press it.
    """

    title: Content
    body: Content
    confirm: str = "Confirm"
    note: NoteRule = "none"
    note_label: str = "Note"
    danger: bool = False
    subject: str = ""


def ask_confirm(widget: Widget, request: ConfirmRequest, on_confirm: Callable[[Confirmed], None]) -> None:
    """Ask ``request`` in the confirm bar of ``widget``'s screen; ``on_confirm`` runs
    when the person confirms (never when they cancel).

    The bar opens, and takes the focus, now, within the action of the key that asked
    (a panel's ``a``): a key typed right after it (``enter``) is matched to the
    bindings only after that action returns, so it reaches the bar. A message to the
    screen, or Textual's ``focus()`` (which moves the focus later), left the focus on
    the list a few milliseconds longer, and an ``enter`` typed then opened the
    selected row instead of confirming."""
    widget.screen.query_one(ConfirmBar).ask(request, on_confirm)


class ConfirmBar(Vertical, can_focus=True):
    """The bar; hidden until :meth:`ask`."""

    BINDINGS = [
        Binding("enter", "confirm", "Confirm", id="confirm-yes"),
        Binding("escape", "cancel", "Cancel", id="confirm-cancel"),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.request: ConfirmRequest | None = None
        self._on_confirm: Callable[[Confirmed], None] | None = None
        self._return_to: Widget | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="confirm-title")
        with VerticalScroll(id="confirm-body"):
            yield Static(id="confirm-body-text")
        yield Label("", id="confirm-note-label")
        yield Input(id="confirm-note")
        yield Static("", id="confirm-problem")
        yield Static("", id="confirm-hint")

    # --- what tests and the screen read -----------------------------------------------

    @property
    def asking(self) -> bool:
        """Whether a question is open."""
        return self.request is not None

    @property
    def confirm_label(self) -> str:
        return self.request.confirm if self.request else ""

    @property
    def note_rule(self) -> NoteRule:
        return self.request.note if self.request else "none"

    @property
    def body(self) -> Content:
        return self.request.body if self.request else Content("")

    # --- asking -------------------------------------------------------------------------

    def ask(self, request: ConfirmRequest, on_confirm: Callable[[Confirmed], None]) -> None:
        """Show ``request`` and take the focus (given back when it is answered)."""
        self.request, self._on_confirm = request, on_confirm
        if not self.display:  # (still drawn after an answer: the focus goes back where it was)
            focused = self.screen.focused
            self._return_to = focused if focused is not self else None
        self.set_class(request.danger, "-danger")
        title = (
            Content.assemble((request.subject, "$accent"), "  ", request.title) if request.subject else request.title
        )
        self.query_one("#confirm-title", Static).update(title)
        self.query_one("#confirm-body-text", Static).update(request.body)
        asks_note = request.note != "none"
        required = " (required)" if request.note == "required" else " (optional)"
        label = self.query_one("#confirm-note-label", Label)
        label.update(request.note_label + required if asks_note else "")
        label.display = asks_note
        note = self.query_one("#confirm-note", Input)
        note.value = ""
        note.placeholder = request.note_label.lower()
        note.display = asks_note
        self._problem(None)
        what = f" {request.confirm.lower()} {request.subject}".rstrip()
        hint = Content.assemble(("enter", "bold"), f"{what} · ", ("esc", "bold"), " cancel")
        self.query_one("#confirm-hint", Static).update(hint)
        self.display = True
        self.screen.set_focus(note if asks_note else self)

    @on(Input.Submitted, "#confirm-note")
    def action_confirm(self) -> None:
        request, run = self.request, self._on_confirm
        if request is None or run is None:
            return
        note = self.query_one("#confirm-note", Input).value.strip() if request.note != "none" else ""
        if request.note == "required" and not note:
            self._problem(f"{request.note_label} is required.")
            self.query_one("#confirm-note", Input).focus()
            return
        run(Confirmed(note or None))  # first: the action thread starts while the bar closes
        self._close(answered=True)

    def _problem(self, text: str | None) -> None:
        """Say why the answer cannot be taken yet (None: nothing to say, no line)."""
        problem = self.query_one("#confirm-problem", Static)
        problem.update(Content(text or ""))
        problem.display = text is not None

    def action_cancel(self) -> None:
        self._close()

    def _close(self, *, answered: bool = False) -> None:
        """Stop asking. A cancelled bar goes at once and gives the focus back; an
        ``answered`` one stays drawn, focus and all, until the app has drawn its next
        snapshot (:meth:`hide_answered`; at most :data:`ANSWERED_S`). Hiding it and
        moving the focus lay out the screen and restyle the list and the footer: done
        on Enter, that frame ran on the UI thread while the action thread wrote the
        answer (one GIL), and the answer's own frame then waited for the next 1/60 s
        tick after it; done with the answer's frame, they made it ~6 ms longer."""
        self.request = self._on_confirm = None
        if answered:
            self.set_timer(ANSWERED_S, self.hide_answered)
        else:
            self._hide()

    def hide_answered(self) -> None:
        """Hide the bar if it was answered and is still drawn (the app calls it once a
        snapshot is drawn: the bar goes in the frame after the one with the answer)."""
        if self.request is None and self.display:
            self._hide()

    def _hide(self) -> None:
        self.display = False
        if self._return_to is not None and self._return_to.is_attached:
            self._return_to.focus()
        self._return_to = None
