"""Panel 1: the decisions waiting (blocked task gates, plan approval and permission
requests, stuck shutdowns), the selected one's questions below, and the keys to
decide: ``a`` for the positive answer (approve, retry, allow, resend), ``r`` for the
negative one (reject, give up, deny, force offline), both confirmed first; ``enter``
to read everything."""

from __future__ import annotations

from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from teamdeck.tui import actions, registry
from teamdeck.tui.render import block, cell, show_content
from teamdeck.tui.typed import deck
from teamdeck.tui.widgets.confirm_bar import AskConfirm, Confirmed, ConfirmRequest
from teamdeck.tui.widgets.gate_list import GateList
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.overview import overview
from teamdeck.view.snapshot import GateView, WorkspaceSnapshot, same_items

FAIL_GATE = "verification-failed"
PAIRS = {
    "task-gate": ("approve", "reject"),
    "plan-approval": ("approve", "reject"),
    "fail-gate": ("retry", "give_up"),
    "permission": ("allow", "deny"),
    "shutdown-stuck": ("resend", "force"),
}
"""The two answers (``a``, ``r``) each kind of decision has."""
WRITES = frozenset(action for pair in PAIRS.values() for action in pair)
OLD_PAIRS = frozenset(PAIRS["task-gate"] + PAIRS["fail-gate"])
"""Shown (greyed) when nothing is selected."""


def answers(gate: GateView) -> tuple[str, str]:
    """The actions of ``a`` and ``r`` for ``gate``."""
    return PAIRS["fail-gate" if gate.kind == "task-gate" and gate.subkind == FAIL_GATE else gate.kind]


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
    def selected(self) -> GateView | None:
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
        from teamdeck.tui.screens.text_view import TextScreen  # not needed for the first frame

        gate = self.selected
        if gate is None:
            return
        # Its answers can be given from the text (a, r), as from the queue.
        keys = {action: key for key, action in zip("ar", answers(gate), strict=True)}
        offered = {action: key for action, key in keys.items() if self.check_action(action, ()) is True}

        def answered(key: str | None) -> None:
            chosen = next((action for action, action_key in offered.items() if action_key == key), None)
            if chosen is not None and self.select_key(gate.key):
                getattr(self, f"action_{chosen}")()

        screen = TextScreen(
            Content(cell(gate.title, 200)),
            gate_text(gate),
            header=gate_detail(gate, short=True),
            answers=tuple((key, registry.find("gates", action).label) for action, key in offered.items()),
        )
        self.app.push_screen(screen, answered)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        gate = self.selected
        if action in WRITES and gate is not None and action not in answers(gate):
            return False  # another pair of keys is the one shown for this gate
        if action in WRITES and gate is None and action not in OLD_PAIRS:
            return False
        if action in WRITES and (deck(self).read_only or gate is None):
            return None
        if action == "open" and gate is None:
            return None
        return True

    def action_approve(self) -> None:
        self._decide(approve=True)

    def action_reject(self) -> None:
        self._decide(approve=False)

    def action_retry(self) -> None:
        self._decide(approve=True)

    def action_give_up(self) -> None:
        self._decide(approve=False)

    def action_allow(self) -> None:
        self._permit(approve=True)

    def action_deny(self) -> None:
        self._permit(approve=False)

    def action_resend(self) -> None:
        self._unstick(force=False)

    def action_force(self) -> None:
        self._unstick(force=True)

    def _permit(self, *, approve: bool) -> None:
        gate = self.selected
        if gate is None or gate.kind != "permission" or deck(self).read_only:
            return
        verb = "Allow" if approve else "Deny"
        title = Content.assemble(
            (f"{verb} ", "bold"),
            (cell(gate.member, 64), "bold $accent"),
            (" to use " if approve else " the use of ", "bold"),
            (cell(gate.tool, 64), "bold $warning"),
            ("?", "bold"),
        )
        outcome = (
            "The tool runs with this input, unchanged (permission_response success); a note is only logged."
            if approve
            else "The teammate gets the reason as the error (default: Permission denied)."
        )
        request = ConfirmRequest(
            title,
            Content.assemble(gate_detail(gate), "\n", (outcome, "bold")),
            confirm=verb,
            note="optional",
            note_label="Note" if approve else "Reason",
            danger=not approve,
        )

        def decided(result: Confirmed | None) -> None:
            if result is not None:
                actions.permit(deck(self), gate, approve, result.note)

        self.post_message(AskConfirm(request, decided))

    def _unstick(self, *, force: bool) -> None:
        gate = self.selected
        if gate is None or gate.kind != "shutdown-stuck" or deck(self).read_only:
            return
        who = (cell(gate.member, 64), "bold $accent")
        if force:
            title = Content.assemble(("Force ", "bold"), who, (" offline?", "bold"))
            outcome = (
                "isActive becomes false in config.json (it no longer blocks TeamDelete); the reason "
                "is recorded in messages.jsonl. Use it when the agent is gone for good."
            )
        else:
            title = Content.assemble(("Resend the shutdown request to ", "bold"), who, ("?", "bold"))
            outcome = (
                "A new shutdown_request (new requestId) goes to its inbox; the unanswered one is "
                "recorded as superseded in messages.jsonl."
            )
        request = ConfirmRequest(
            title,
            Content.assemble(gate_detail(gate), "\n", (outcome, "bold")),
            confirm="Force offline" if force else "Resend",
            note="optional",
            note_label="Reason",
            danger=force,
        )

        def decided(result: Confirmed | None) -> None:
            if result is None:
                return
            if force:
                actions.force_offline(deck(self), gate, result.note)
            else:
                actions.resend_stuck_shutdown(deck(self), gate, result.note)

        self.post_message(AskConfirm(request, decided))

    def _decide(self, *, approve: bool) -> None:
        gate = self.selected
        if gate is None or gate.kind not in ("task-gate", "plan-approval") or deck(self).read_only:
            return
        verb = "Approve" if approve else "Reject"
        body = gate_detail(gate)
        if gate.subkind == FAIL_GATE:
            verb = "Retry" if approve else "Give up"
            body = Content.assemble(body, "\n", (FAIL_OUTCOMES[approve], "bold"))
        title = Content.assemble((f"{verb} ", "bold"), (cell(gate.title, 120), "bold $warning"))
        request = ConfirmRequest(
            title,
            body,
            confirm=verb,
            note="optional" if approve else "required",
            note_label="Note" if gate.kind == "task-gate" else "Feedback",
            danger=not approve,
        )

        def decided(result: Confirmed | None) -> None:
            if result is not None:
                actions.decide(deck(self), gate, approve, result.note)

        self.post_message(AskConfirm(request, decided))


HEADINGS = {"plan-approval": "plan approval", "permission": "permission request", "shutdown-stuck": "stuck shutdown"}
SUBKIND_LABELS = {
    FAIL_GATE: "verification FAILED: retry (a) or give up (r)",
    "plan-approval": "coordinator plan: approve to make it READY",
}
FAIL_OUTCOMES = {
    True: "Retry: the task goes back to working and its guardian can run again.",
    False: "Give up: the task fails (final) and its other open gates are closed.",
}


def gate_detail(gate: GateView, *, short: bool = False) -> Content:
    """What a person reads before deciding (sanitised).

    ``short`` leaves out the reason, questions and plan: the header of the full view,
    whose body already holds them whole (:func:`gate_text`).
    """
    parts: list[str | tuple[str, str]] = [
        (HEADINGS[gate.kind] if gate.kind in HEADINGS else f"gate {cell(gate.gate_id, 64)}", "bold"),
        (f"  {SUBKIND_LABELS[gate.subkind]}" if gate.subkind in SUBKIND_LABELS else "", "bold $warning"),
        (f"  tool {cell(gate.tool, 64)}" if gate.kind == "permission" else "", "bold $warning"),
        f"  from {cell(gate.source, 80)}",
        f"  waiting since {cell(gate.created_at, 40)}\n",
    ]
    if gate.agent:
        parts += [("who: ", "$text-muted"), f"{cell(gate.agent, 64)}\n"]
    if gate.request_id and gate.kind in ("permission", "shutdown-stuck"):
        parts += [("request: ", "$text-muted"), f"{cell(gate.request_id, 120)}\n"]
    if gate.reason and not short:
        parts += [("reason: ", "$text-muted"), f"{cell(gate.reason, 500)}\n"]
    for number, question in enumerate(() if short else gate.questions, 1):
        parts += [(f"Q{number}. ", "bold $accent"), f"{block(question, 2000)}\n"]
    if gate.notes_path:
        parts += [("notes: ", "$text-muted"), f"{cell(gate.notes_path, 200)}\n"]
    if gate.body and not short:
        parts += [("input:\n" if gate.kind == "permission" else "plan:\n", "$text-muted"), block(gate.body, 1500)]
    return Content.assemble(*parts)


def gate_text(gate: GateView) -> str:
    """The whole request as plain text, for the full view (sanitised there)."""
    lines = [gate.title, "", *(f"Q{n}. {q}" for n, q in enumerate(gate.questions, 1))]
    if gate.body:
        lines += ["", gate.body]
    return "\n".join(lines)
