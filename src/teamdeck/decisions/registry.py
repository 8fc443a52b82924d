"""The lookups every front makes in the registry of decision kinds (decisions/kinds.py):
a decision's spec, every answer there is (the TUI's keys), and answering a decision
by its key."""

from __future__ import annotations

from teamdeck.decisions import kinds, session_kinds
from teamdeck.decisions.spec import Answer, Answered, DecisionSpec
from teamdeck.errors import NotFound
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot import Decision, WorkspaceSnapshot

SPECS = {**kinds.SPECS, **session_kinds.SPECS}
"""Every kind, by its name: the files' own, then the live sessions'."""


def spec_of(decision: Decision) -> DecisionSpec:
    """The spec of ``decision``'s kind.

    Raises:
        NotFound: the kind has no spec (a view builds a kind nobody registered).
    """
    found = SPECS.get(decision.kind)
    if found is None:
        raise NotFound(f"decision {shown(decision.key)} is of kind {shown(decision.kind)}, which has no spec")
    return found


def all_answers() -> tuple[Answer, ...]:
    """Every answer of every kind and variant, one per action (the first registered
    wins: the TUI has one key binding per action), in registration order."""
    seen: dict[str, Answer] = {}
    for spec in SPECS.values():
        pairs = [spec.answers, *(variant.answers for variant in spec.variants.values() if variant.answers)]
        for pair in pairs:
            for answer in pair:
                seen.setdefault(answer.action, answer)
    return tuple(seen.values())


def find_decision(snapshot: WorkspaceSnapshot, key: str) -> Decision:
    """The open decision ``key`` of ``snapshot``.

    Raises:
        NotFound: nothing with that key waits (answered already, or never asked).
    """
    decision = snapshot.gate(key)
    if decision is None or not decision.open:
        raise NotFound(f"no decision {shown(key)} is waiting (see `teamdeck decisions list`)")
    return decision


def answer_decision(ws: Workspace, decision: Decision, word: str, note: str | None) -> tuple[Answer, Answered]:
    """Answer ``decision`` with ``word`` (``approve``/``reject`` or the answer's own
    name) through its spec: the note is checked, then the kind's protocol call runs.

    Raises:
        Refused: no such answer, or a required note is missing (nothing written);
            and whatever the protocol call raises.
    """
    answer = spec_of(decision).answer(decision, word)
    return answer, answer.run(ws, decision, answer.check_note(decision, note))
