"""The decision queue as JSON: ``teamdeck decisions list --json``, the ``gates`` of
``teamdeck status --json`` and the MCP server's ``list_decisions``."""

from __future__ import annotations

from typing import Any

from teamdeck.clock import iso
from teamdeck.decisions.registry import spec_of
from teamdeck.decisions.spec import Answer, Answered, Part
from teamdeck.view.snapshot.workspace import Decision, WorkspaceSnapshot


def decision_json(decision: Decision) -> dict[str, Any]:
    """One decision: the fields every kind has, its two answers (with the confirm
    question and the note each asks for), what a person reads before deciding
    (``detail``), and its kind's own fields (its spec's ``json``)."""
    spec = spec_of(decision)
    positive, negative = spec.answers_for(decision)
    return {
        "key": decision.key,
        "kind": decision.kind,
        "label": spec.label_for(decision),
        "state": decision.state,
        "createdAt": decision.created_at,
        "source": decision.source,
        "title": decision.title,
        "reason": decision.reason,
        "agent": decision.agent,
        "questions": list(decision.questions),
        "answers": {"approve": _answer_json(decision, positive), "reject": _answer_json(decision, negative)},
        "detail": parts_json(spec.detail(decision, False)),
        **spec.json(decision),
    }


def _answer_json(decision: Decision, answer: Answer) -> dict[str, Any]:
    """One answer as a front offers it: its word, label, the note it asks for and what
    the note is called, what it will do, and the question a person confirms."""
    return {
        "action": answer.action,
        "label": answer.label,
        "note": answer.note,
        "noteLabel": answer.note_label,
        "outcome": answer.outcome,
        "question": parts_json(answer.question(decision)),
    }


def parts_json(parts: tuple[Part, ...]) -> list[dict[str, Any]]:
    """A spec's parts (decisions/spec.py ``Part``) for a front elsewhere: each one's text
    (the files' text cut to what sanitising it to ``limit`` reads, never more), style
    role and form; the front sanitises ``line`` and ``block`` text as the TUI does."""
    return [
        {
            "text": part.text if part.form == "ours" else part.text[: part.limit * 4],
            "style": part.style,
            "form": part.form,
            "limit": part.limit,
        }
        for part in parts
    ]


def queue_json(snapshot: WorkspaceSnapshot) -> dict[str, Any]:
    """Every decision waiting, oldest first: exactly the TUI's queue."""
    return {
        "ok": True,
        "workspace": snapshot.root,
        "takenAt": iso(snapshot.taken_at),
        "decisions": [decision_json(decision) for decision in snapshot.decisions],
    }


def answered_json(decision: Decision, answer: Answer, answered: Answered) -> dict[str, Any]:
    """What answering ``decision`` did."""
    return {
        "ok": True,
        "key": decision.key,
        "kind": decision.kind,
        "answer": answer.action,
        "positive": answer.positive,
        "summary": answered.summary,
        **answered.data,
    }
