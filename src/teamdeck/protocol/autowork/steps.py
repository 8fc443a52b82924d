"""What one automatic step did: :class:`AutoStep` (the step's account, beside the event
it appended)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ACTOR = "teamdeck:autowork"
"""The actor of every event an automatic step appends."""
StepKind = Literal["plan", "verify", "retry", "nudge", "stall-decision", "retire"]


@dataclass(frozen=True)
class AutoStep:
    """One automatic step.

    Attributes:
        kind: what kind of step.
        subject: the plan or task it was taken on.
        cause: why (what the step saw).
        summary: what it did, in one line.
    """

    kind: StepKind
    subject: str
    cause: str
    summary: str

    @property
    def line(self) -> str:
        return f"{self.subject}: {self.summary} (because {self.cause})"
