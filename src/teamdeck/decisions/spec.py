"""What a kind of decision is, once: :class:`DecisionSpec` and its two :class:`Answer` s
(the specs are in decisions/kinds.py, decisions/run_kinds.py and decisions/session_kinds.py;
decisions/registry.py registers them and holds the lookups every front uses).

The view builds :class:`~teamdeck.view.snapshot.workspace.Decision` rows from the files; how a
row of a kind is named, shown, serialised and answered is its spec's business. The
queue and the detail of the TUI, its keys, footer and palette, ``teamdeck status``,
``teamdeck decisions``, the JSON shapes and the alerts all ask the spec, so a new kind is
one spec and its protocol function; no front branches on a kind.

A spec is front-neutral: its detail and its confirm question are :class:`Part` s
(text plus a style role), which a front sanitises and styles at its edge.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from teamdeck.errors import Refused
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.workspace import Decision

Style = Literal["", "bold", "accent", "warning", "muted"]
"""A style role: the TUI maps it to its theme (``warning`` → ``$warning``); plain text
fronts ignore it."""


@dataclass(frozen=True)
class Part:
    """One piece of a decision's detail or question.

    Attributes:
        text: ``ours`` is teamdeck's own wording, shown as it is (spaces and newlines
            kept); ``line`` and ``block`` are as the files have it (agent-written text
            included): the front sanitises it, to one line or keeping its lines.
        style: see :data:`Style`.
        form: ``ours``, ``line`` or ``block``.
        limit: the most characters of a ``line`` or ``block`` to show.
    """

    text: str
    style: Style = ""
    form: Literal["ours", "line", "block"] = "line"
    limit: int = 200


def ours(text: str, style: Style = "") -> Part:
    """teamdeck's own words (labels, spacing, newlines)."""
    return Part(text, style, "ours")


@dataclass(frozen=True, kw_only=True)
class Answered:
    """What answering did: one line for people, the fields of ``--json``, and what the
    answer still owes (its effects that failed, kept to be finished later: not empty,
    the answer is recorded but not done, and every front says so, F24)."""

    summary: str
    data: dict[str, Any] = field(default_factory=dict)
    owed: tuple[str, ...] = ()


Run = Callable[[Workspace, Decision, str | None], Answered]
"""``run(ws, decision, note) -> Answered``: the protocol call that answers (it writes the
files; errors are the protocol's own)."""


@dataclass(frozen=True, kw_only=True)
class Answer:
    """One of a decision's two answers.

    Attributes:
        id: the TUI action's id (keymaps can rebind it): ``gate-approve``.
        action: its name: the TUI's action (``answer('allow')``) and the CLI's word.
        positive: ``a`` (approve, retry, allow, resend) or ``r`` (the other).
        label: the footer's label and the confirm button (``Give up``).
        command: the palette's name for it.
        help: the help screen's line.
        note: whether a note is ``optional`` or ``required``.
        note_label: what the note is called (Note, Feedback, Reason).
        outcome: what will happen, said before the person confirms ("" : nothing more
            than the label says).
        question: the confirm question for a decision.
        run: see :data:`Run`.
    """

    id: str
    action: str
    positive: bool
    label: str
    command: str
    help: str
    note: Literal["optional", "required"]
    note_label: str
    question: Callable[[Decision], tuple[Part, ...]]
    run: Run
    outcome: str = ""

    @property
    def danger(self) -> bool:
        """The negative answer is the one to think twice about (red confirm)."""
        return not self.positive

    def check_note(self, decision: Decision, note: str | None) -> str | None:
        """``note`` stripped (None when empty).

        Raises:
            Refused: the note is required and missing (nothing is written).
        """
        note = note.strip() if note and note.strip() else None
        if note is None and self.note == "required":
            raise Refused(
                f"Could not {self.action} {shown(decision.key)}: {self.note_label.lower()} is required (--note); "
                "nothing was written"
            )
        return note


@dataclass(frozen=True, kw_only=True)
class Variant:
    """How a sub-kind (a task gate's own kind) differs: its list label, the line the
    detail adds, its own answers and alert reason (None: the kind's)."""

    label: str
    note: str = ""
    answers: tuple[Answer, Answer] | None = None
    alert_reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class DecisionSpec:
    """Everything about a kind of decision but where it comes from (the view).

    Attributes:
        kind: the :data:`~teamdeck.view.snapshot.workspace.DecisionKind` it describes.
        label: the queue's short name (``permit``).
        heading: the detail's first words (``permission request``).
        answers: the positive and the negative answer.
        what: the one line ``status`` shows for it (``gate g-1``, ``plan <id>``).
        alert_reason: why the person is alerted when one arrives, said after who waits
            (``alice asks for permission``; tui/alerts.py).
        detail: what a person reads before deciding (``short``: the header of the
            full view, without the long parts).
        json: the kind's own fields of its JSON (the common ones are added).
        variants: by sub-kind (task gates: FAIL gates, round reviews...).
    """

    kind: str
    label: str
    heading: str
    answers: tuple[Answer, Answer]
    what: Callable[[Decision], str]
    alert_reason: str
    detail: Callable[[Decision, bool], tuple[Part, ...]]
    json: Callable[[Decision], dict[str, Any]]
    variants: Mapping[str, Variant] = field(default_factory=dict)

    def answers_for(self, decision: Decision) -> tuple[Answer, Answer]:
        """The positive and negative answers of ``decision`` (its variant's, if any)."""
        variant = self.variants.get(decision.subkind)
        return variant.answers if variant is not None and variant.answers is not None else self.answers

    def label_for(self, decision: Decision) -> str:
        variant = self.variants.get(decision.subkind)
        return variant.label if variant is not None else self.label

    def alert_reason_for(self, decision: Decision) -> str:
        """Why ``decision`` alerts the person (its variant's reason, if it has one)."""
        variant = self.variants.get(decision.subkind)
        return variant.alert_reason if variant is not None and variant.alert_reason is not None else self.alert_reason

    def answer(self, decision: Decision, word: str) -> Answer:
        """The answer ``word`` names: ``approve``/``reject`` (the positive / negative
        one, whatever the kind) or the answer's own action (``allow``, ``give_up``).

        Raises:
            Refused: no answer of this decision is called so.
        """
        positive, negative = self.answers_for(decision)
        word = word.replace("-", "_")
        for answer in (positive, negative):
            if word == answer.action:
                return answer
        if word in ("approve", "yes"):
            return positive
        if word in ("reject", "no"):
            return negative
        own = (positive.action, negative.action)  # a gate's are approve and reject: said once, not twice
        aliases = "" if own == ("approve", "reject") else f" ({own[0]} or {own[1]})"
        raise Refused(f"'{shown(word)}' is no answer to {shown(decision.key)}: use approve or reject{aliases}")


# --- parts every kind shows ------------------------------------------------------------


def detail(
    decision: Decision,
    short: bool,
    heading: tuple[Part, ...],
    *,
    note: str = "",
    body_label: str = "plan:\n",
    request: bool = False,
) -> tuple[Part, ...]:
    """What every kind shows before a person decides: the heading, where it comes
    from, since when, who waits, the request id, the reason and questions, the notes
    file and the long body (``request``: show the request id too; ``short`` leaves the reason, questions and body out: the
    full view's header, whose body holds them whole)."""
    parts: list[Part] = [*heading]
    if note:
        parts.append(ours(f"  {note}", "warning"))
    parts += [
        ours("  from "),
        Part(decision.source, limit=80),
        ours("  waiting since "),
        Part(decision.created_at, limit=40),
    ]
    parts.append(ours("\n"))
    if decision.agent:
        parts += [ours("who: ", "muted"), Part(decision.agent, limit=64), ours("\n")]
    if decision.request_id and request:
        parts += [ours("request: ", "muted"), Part(decision.request_id, limit=120), ours("\n")]
    if decision.reason and not short:
        parts += [ours("reason: ", "muted"), Part(decision.reason, limit=500), ours("\n")]
    for number, question in enumerate(() if short else decision.questions, 1):
        parts += [ours(f"Q{number}. ", "accent"), Part(question, form="block", limit=2000), ours("\n")]
    if decision.notes_path:
        parts += [ours("notes: ", "muted"), Part(decision.notes_path), ours("\n")]
    if decision.body and not short:
        parts += [ours(body_label, "muted"), Part(decision.body, form="block", limit=1500)]
    return tuple(parts)


def asks(verb: str, what: str, *rest: Part) -> tuple[Part, ...]:
    return (ours(f"{verb} ", "bold"), Part(what, "warning", limit=120), *rest)


def question_about(verb: str) -> Callable[[Decision], tuple[Part, ...]]:
    return lambda decision: asks(verb, decision.title)


def member_question(before: str, decision: Decision, after: str = "?") -> tuple[Part, ...]:
    """``Allow alice to use`` : our words around the member's name."""
    return (ours(before, "bold"), Part(decision.member or "", "accent", limit=64), ours(after, "bold"))


def team_json(decision: Decision) -> dict[str, Any]:
    return {"team": decision.team, "member": decision.member, "requestId": decision.request_id}
