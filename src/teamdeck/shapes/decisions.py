"""The decision queue as JSON: ``teamdeck decisions list --json``, the ``gates`` of
``teamdeck status --json`` and the MCP server's ``list_decisions``."""

from __future__ import annotations

from typing import Any

from teamdeck.clock import iso
from teamdeck.decisions.registry import spec_of
from teamdeck.decisions.spec import Answer, Answered
from teamdeck.view.snapshot.workspace import Decision, WorkspaceSnapshot


def decision_json(decision: Decision) -> dict[str, Any]:
    """One decision: the fields every kind has, its two answers, and its kind's own
    fields (its spec's ``json``)."""
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
        "answers": {
            "approve": {"action": positive.action, "label": positive.label, "note": positive.note},
            "reject": {"action": negative.action, "label": negative.label, "note": negative.note},
        },
        **spec.json(decision),
    }


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
