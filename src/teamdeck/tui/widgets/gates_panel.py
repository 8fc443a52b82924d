"""Panel 1: the decisions waiting (every kind the registry knows: blocked task gates,
plan approval and permission requests, stuck shutdowns...), the selected one's detail
below, and the keys to decide: ``a`` for its positive answer (approve, retry, allow,
resend), ``r`` for its negative one (reject, give up, deny, force offline), both
confirmed first; ``enter`` to read everything. What each kind shows and does is its
spec's (teamdeck/decisions/kinds.py): nothing here branches on a kind."""

from __future__ import annotations

from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from teamdeck.decisions.registry import all_answers, spec_of
from teamdeck.decisions.spec import Answer
from teamdeck.tui import actions, registry
from teamdeck.tui.render import cell, parts_content, show_content
from teamdeck.tui.typed import deck
from teamdeck.tui.widgets.confirm_bar import Confirmed, ConfirmRequest, ask_confirm
from teamdeck.tui.widgets.gate_list import GateList
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.overview import overview
from teamdeck.view.snapshot import Decision, WorkspaceSnapshot, same_items

ANSWERS = frozenset(answer.action for answer in all_answers())
"""Every answer's action (``answer('allow')``: one binding each, ``a`` or ``r``)."""
IDLE_ANSWERS = frozenset(answer.action for answer in all_answers()[:4])
"""Shown (greyed) when nothing is selected: the task gate's answers (approve, reject,
retry, give up), registered first."""


def answers(decision: Decision) -> tuple[Answer, Answer]:
    """The answers of ``a`` and ``r`` for ``decision``."""
    return spec_of(decision).answers_for(decision)


class GatesPanel(Panel):
    """The gate queue with its detail."""

    LIST = "#gate-list"
    BINDINGS = registry.bindings("gates")

    def compose(self) -> ComposeResult:
        yield GateList(empty="reading…", id="gate-list")
        with VerticalScroll(id="gate-detail", classes="detail"):
            yield Static(id="gate-detail-text")

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        before, self.snapshot = self.snapshot, snapshot
        gates = self.query_one(GateList)
        if not snapshot.gates:
            gates.empty = f"no decisions waiting — {overview(snapshot).scanned()}"
        gates.show(snapshot.gates, deck(self).ws.clock(), deck(self).alerter.marks.keys)
        if before is None or not same_items(snapshot.gates, before.gates):
            self._show_detail()  # (the same gates: the same one selected, the same detail)

    def tick(self, now: datetime) -> None:
        if self.snapshot is not None:
            self.query_one(GateList).show(self.snapshot.gates, now, deck(self).alerter.marks.keys)

    @property
    def selected(self) -> Decision | None:
        key = self.list.current_key
        return self.snapshot.gate(key) if self.snapshot is not None and key else None

    @on(LineList.Highlighted, "#gate-list")
    def _moved(self, event: LineList.Highlighted) -> None:
        if deck(self).app_focus:
            deck(self).alerter.marks.selected(event.key)  # the person moved onto it: seen
        self._show_detail()

    def _show_detail(self) -> None:
        gate = self.selected
        show_content(self.query_one("#gate-detail-text", Static), gate_detail(gate) if gate else Content(""))
        self.selection_moved()

    @on(LineList.Chosen, "#gate-list")
    def action_open(self) -> None:
        from teamdeck.tui.dialogs.text_view import TextScreen  # not needed for the first frame

        gate = self.selected
        if gate is None:
            return
        # Its answers can be given from the text (a, r), as from the queue.
        offered = {
            ("a" if answer.positive else "r"): answer
            for answer in answers(gate)
            if self.check_action("answer", (answer.action,)) is True
        }

        def answered(key: str | None) -> None:
            chosen = offered.get(key or "")
            if chosen is not None and self.select_key(gate.key):
                self.action_answer(chosen.action)

        screen = TextScreen(
            Content(cell(gate.title, 200)),
            gate_text(gate),
            header=gate_detail(gate, short=True),
            answers=tuple((key, answer.label) for key, answer in offered.items()),
        )
        self.app.push_screen(screen, answered)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        gate = self.selected
        if action == "answer":
            name = parameters[0] if parameters else None
            if gate is None:
                return None if name in IDLE_ANSWERS else False
            if name not in {answer.action for answer in answers(gate)}:
                return False  # another pair of keys is the one shown for this decision
            return None if deck(self).read_only else True
        if action == "open" and gate is None:
            return None
        return True

    def action_answer(self, name: str) -> None:
        """Ask to confirm the selected decision's answer ``name``, then run it."""
        gate = self.selected
        if gate is None or deck(self).read_only:
            return
        answer = next((answer for answer in answers(gate) if answer.action == name), None)
        if answer is None:
            return
        body = gate_detail(gate)
        if answer.outcome:
            body = Content.assemble(body, "\n", (answer.outcome, "bold"))
        request = ConfirmRequest(
            parts_content(answer.question(gate)),
            body,
            confirm=answer.label,
            note=answer.note,
            note_label=answer.note_label,
            danger=answer.danger,
        )

        def decided(result: Confirmed | None) -> None:
            if result is not None:
                self.app.post_message(actions.answer(gate, answer, result.note))

        ask_confirm(self, request, decided)


def gate_detail(gate: Decision, *, short: bool = False) -> Content:
    """What a person reads before deciding (its spec's detail, sanitised).

    ``short`` leaves out the reason, questions and plan: the header of the full view,
    whose body already holds them whole (:func:`gate_text`).
    """
    return parts_content(spec_of(gate).detail(gate, short))


def gate_text(gate: Decision) -> str:
    """The whole request as plain text, for the full view (sanitised there)."""
    lines = [gate.title, "", *(f"Q{n}. {q}" for n, q in enumerate(gate.questions, 1))]
    if gate.body:
        lines += ["", gate.body]
    return "\n".join(lines)
