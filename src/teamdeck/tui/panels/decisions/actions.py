"""What the decision keys do to the files: answer a decision of any kind, as a
:class:`RunAction` message the widget posts (the decisions panel's ``a`` and ``r``, the
roster's plan keys). The answer is live/calls.py's, which every front shares; the app's
action runner (live/actions.py) runs it and has exactly what it wrote read. Nothing here
writes a file itself or shows anything optimistic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.live import calls
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.workspace import Decision

if TYPE_CHECKING:
    from teamdeck.decisions.spec import Answer


def answer(decision: Decision, answer: Answer, note: str | None) -> RunAction:
    """Answer ``decision`` (any kind) with ``answer``, one of its spec's two."""
    return RunAction(calls.answer(decision, answer.action, note))
