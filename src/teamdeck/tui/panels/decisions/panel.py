"""Panel 1: the decisions waiting (every kind the registry knows: blocked task gates,
plan approval and permission requests, stuck shutdowns...), the selected one's detail
below, and the keys to decide: ``a`` for its positive answer (approve, retry, allow,
resend), ``r`` for its negative one (reject, give up, deny, force offline), both
confirmed first; ``enter`` to read everything. What each kind shows and does is its
spec's (teamdeck/decisions/kinds.py): nothing here branches on a kind."""

from __future__ import annotations

from datetime import datetime
from time import monotonic

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.notifications import Notify
from textual.widgets import Static

from teamdeck.decisions.registry import all_answers, spec_of
from teamdeck.decisions.spec import Answer
from teamdeck.tui.host import deck_host
from teamdeck.tui.panels.decisions import KEYS, actions
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.render import cell, parts_content, show_content
from teamdeck.tui.widgets.confirm_bar import Confirmed, ConfirmRequest, ask_confirm
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.notice_line import Hint
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.figures.overview import overview
from teamdeck.view.snapshot.workspace import Decision, WorkspaceSnapshot, same_items

ANSWERS = frozenset(answer.action for answer in all_answers())
"""Every answer's action (``answer('allow')``: one binding each, ``a`` or ``r``)."""
IDLE_ANSWERS = frozenset(
    next(answer.action for answer in all_answers() if answer.positive is positive) for positive in (True, False)
)
"""Shown (greyed) when nothing is selected: one answer per key, the first registered
(the task gate's approve and reject). One per key, as the footer shows one per key: a
second one greyed too (retry) was tried after approve on the same ``a``, and its
refusal ("Retry: nothing is selected") was the one on the notice line."""
ANSWER_QUIET_S = 0.75
"""How long after an answer lands (its decision gone from the queue drawn) answer keys
are ignored: letters still being typed (the rest of a note, a word meant for another
window) would otherwise open an answer on the next decision, and Enter give it."""
VACANT = Content.assemble(
    ("Nothing selected: ", "bold"),
    "the decision you had selected is no longer waiting. ",
    ("down", "bold"),
    " or ",
    ("j", "bold"),
    " selects the one now in its place, ",
    ("up", "bold"),
    " or ",
    ("k", "bold"),
    " the one above.",
)
"""The detail while nothing is selected because the selected decision went."""


def answers(decision: Decision) -> tuple[Answer, Answer]:
    """The answers of ``a`` and ``r`` for ``decision``."""
    return spec_of(decision).answers_for(decision)


class DecisionsPanel(Panel):
    """The decision queue with its detail."""

    LIST = "#gate-list"
    BINDINGS = KEYS.bindings()

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._answered: str | None = None
        """The key of the decision last answered here, until a snapshot without it is drawn."""
        self._quiet_until = 0.0
        """Answer keys are ignored until then (``monotonic()``; :data:`ANSWER_QUIET_S`)."""

    def compose(self) -> ComposeResult:
        yield DecisionList(empty="reading…", id="gate-list")
        with VerticalScroll(id="gate-detail", classes="detail"):
            yield Static(id="gate-detail-text")

    @property
    def answers_quiet(self) -> bool:
        """An answer was given or landed a moment ago: answer keys are ignored now
        (:data:`ANSWER_QUIET_S`)."""
        return monotonic() < self._quiet_until

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        before, self.snapshot = self.snapshot, snapshot
        decisions = self.query_one(DecisionList)
        if not snapshot.decisions:
            decisions.empty = f"no decisions waiting — {overview(snapshot).scanned()}"
        decisions.show(snapshot.decisions, deck_host(self).ws.clock(), deck_host(self).alerter.marks.keys)
        if self._answered is not None and snapshot.decision(self._answered) is None:
            self._answered, self._quiet_until = None, monotonic() + ANSWER_QUIET_S  # the answer landed
        if before is None or not same_items(snapshot.decisions, before.decisions):
            self._show_detail()  # (the same decisions: the same one selected, the same detail)

    def tick(self, now: datetime) -> None:
        if self.snapshot is not None:
            self.query_one(DecisionList).show(self.snapshot.decisions, now, deck_host(self).alerter.marks.keys)

    @property
    def selected(self) -> Decision | None:
        key = self.list.current_key
        return self.snapshot.decision(key) if self.snapshot is not None and key else None

    @on(LineList.Highlighted, "#gate-list")
    def _moved(self, event: LineList.Highlighted) -> None:
        if deck_host(self).app_focus:
            deck_host(self).alerter.marks.selected(event.key)  # the person moved onto it: seen
        self._show_detail()

    def rows_filtered(self) -> None:
        """The filter changed which rows show: the detail follows (it says why nothing
        is selected once rows are back after the selected decision went)."""
        self._show_detail()

    def _show_detail(self) -> None:
        decision = self.selected
        if decision is not None:
            detail = decision_detail(decision)
        else:
            detail = VACANT if self.list.vacant and self.list.rows else Content("")
        show_content(self.query_one("#gate-detail-text", Static), detail)
        self.selection_moved()

    @on(LineList.Chosen, "#gate-list")
    def action_open(self) -> None:
        from teamdeck.tui.dialogs.text_view import TextScreen  # not needed for the first frame

        decision = self.selected
        if decision is None:
            return
        # Its answers can be given from the text (a, r), as from the queue.
        offered = {
            ("a" if answer.positive else "r"): answer
            for answer in answers(decision)
            if self.check_action("answer", (answer.action,)) is True
        }

        def answered(key: str | None) -> None:
            chosen = offered.get(key or "")
            if chosen is not None and self.select_key(decision.key):
                self.action_answer(chosen.action)

        screen = TextScreen(
            Content(cell(decision.title, 200)),
            decision_text(decision),
            header=decision_detail(decision, short=True),
            answers=tuple((key, answer.label) for key, answer in offered.items()),
        )
        self.app.push_screen(screen, answered)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        decision = self.selected
        if action == "answer":
            name = parameters[0] if parameters else None
            if decision is None:
                return None if name in IDLE_ANSWERS else False
            if name not in {answer.action for answer in answers(decision)}:
                return False  # another pair of keys is the one shown for this decision
            return None if deck_host(self).read_only else True
        if action == "open" and decision is None:
            return None
        return True

    def action_answer(self, name: str) -> None:
        """Ask to confirm the selected decision's answer ``name``, then run it."""
        decision = self.selected
        if decision is None or deck_host(self).read_only:
            return
        answer = next((answer for answer in answers(decision) if answer.action == name), None)
        if answer is None:
            return
        if self.answers_quiet:
            why = f"{answer.label} ignored: typed just after an answer landed; press it again to answer"
            self.app.post_message(Notify(Hint(cell(why, 200), timeout=4)))
            return
        body = decision_detail(decision)
        if answer.outcome:
            body = Content.assemble(body, "\n", (answer.outcome, "bold"))
        request = ConfirmRequest(
            parts_content(answer.question(decision)),
            body,
            confirm=answer.label,
            note=answer.note,
            note_label=answer.note_label,
            danger=answer.danger,
            subject=decision_name(decision),
        )

        def decided(result: Confirmed | None) -> None:
            if result is not None:
                self._answered, self._quiet_until = decision.key, monotonic() + ANSWER_QUIET_S
                self.app.post_message(actions.answer(decision, answer, result.note))

        ask_confirm(self, request, decided)


def decision_detail(decision: Decision, *, short: bool = False) -> Content:
    """What a person reads before deciding (its spec's detail, sanitised).

    ``short`` leaves out the reason, questions and plan: the header of the full view,
    whose body already holds them whole (:func:`decision_text`).
    """
    return parts_content(spec_of(decision).detail(decision, short))


def decision_name(decision: Decision) -> str:
    """Which decision it is, in words, sanitised: ``gate g-w1-1 of task t1``."""
    return cell(f"{spec_of(decision).what(decision)} of {decision.source}", 120)


def decision_text(decision: Decision) -> str:
    """The whole request as plain text, for the full view (sanitised there)."""
    lines = [decision.title, "", *(f"Q{n}. {q}" for n, q in enumerate(decision.questions, 1))]
    if decision.body:
        lines += ["", decision.body]
    return "\n".join(lines)
