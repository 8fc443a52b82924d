"""The registry of decision kinds, and the lookups every front makes in it: a
decision's spec, every answer there is (the TUI's keys), and answering a decision by
its key.

Every kind is registered here, one way: each module of kinds lists its specs in its
``SPECS`` (decisions/kinds.py: the workspace's files; decisions/run_kinds.py: the
runner's; decisions/session_kinds.py: the live sessions'), and :data:`SPECS` joins them
in that order (the order of the TUI's key bindings). A kind added to one of those lists
is registered; a new module of kinds adds one line here.
"""

from __future__ import annotations

from teamdeck.decisions import kinds, run_kinds, session_kinds
from teamdeck.decisions.spec import Answer, Answered, DecisionSpec
from teamdeck.errors import NotFound
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.workspace import Decision, WorkspaceSnapshot


def _by_kind(*specs: DecisionSpec) -> dict[str, DecisionSpec]:
    """``specs`` by their kind, in order; a kind registered twice is a mistake made here."""
    found: dict[str, DecisionSpec] = {}
    for spec in specs:
        assert spec.kind not in found, f"decision kind {spec.kind} is registered twice"
        found[spec.kind] = spec
    return found


SPECS = _by_kind(*kinds.SPECS, *run_kinds.SPECS, *session_kinds.SPECS)
"""Every kind, by its name: the files' own, the runner's, then the live sessions'."""


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
    decision = snapshot.decision(key)
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
