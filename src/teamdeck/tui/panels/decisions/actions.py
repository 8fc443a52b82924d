"""What the decision keys do to the files: answer a decision of any kind, as a
:class:`RunAction` message the widget posts (the decisions panel's ``a`` and ``r``, the
roster's plan keys). The answer is the kind's spec's protocol call (decisions/kinds.py),
imported when it runs, on the worker; the app's action runner (live/actions.py) runs it
and has exactly what it wrote read. Nothing here writes a file itself or shows anything
optimistic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.decisions import registry as decisions
from teamdeck.live.actions import Action
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.workspace import Decision

if TYPE_CHECKING:
    from teamdeck.decisions.spec import Answer
    from teamdeck.store.workspace import Workspace


def answer(decision: Decision, answer: Answer, note: str | None) -> RunAction:
    """Answer ``decision`` (any kind) with ``answer``, one of its spec's two: the spec
    runs its protocol call (decisions/kinds.py)."""
    what = decisions.spec_of(decision).what(decision)

    def call(ws: Workspace) -> str:
        from teamdeck.adapters.forge_outbox import deliver_if_configured

        summary = decisions.answer_decision(ws, decision, answer.action, note)[1].summary
        return "; ".join([summary, *deliver_if_configured(ws)])  # what it queued for Gitea, if anything

    return RunAction(Action(f"{answer.action.replace('_', ' ')} {what}", call))
