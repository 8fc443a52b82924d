"""What ``teamdeck run`` recorded of one member, as the snapshot holds it: a
:class:`MemberRuns` per member that ran (read by view/readers/runs.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from teamdeck.clock import parse_iso

if TYPE_CHECKING:
    from teamdeck.model.run import RunRecord


@dataclass(frozen=True)
class MemberRuns:
    """A member's runs, newest last.

    Attributes:
        runs: every readable run.yaml, oldest first.
        problems: run.yaml files that could not be read (one line each).
    """

    team: str
    member: str
    runs: tuple[RunRecord, ...] = ()
    problems: tuple[str, ...] = ()

    @property
    def live(self) -> RunRecord | None:
        """The run still going, if any (at most one: the runner starts one per member)."""
        return next((run for run in reversed(self.runs) if run.live), None)

    @property
    def last(self) -> RunRecord | None:
        return self.runs[-1] if self.runs else None

    @property
    def cost_usd(self) -> float:
        """Every run's reported cost, added up."""
        return round(sum(run.costUsd or 0.0 for run in self.runs), 6)

    @property
    def session_id(self) -> str | None:
        """The session of the latest run that reported one (resumed by the next run)."""
        return next((run.sessionId for run in reversed(self.runs) if run.sessionId), None)

    def runs_on(self, day: datetime) -> int:
        """How many runs started on ``day`` (UTC)."""
        return sum(1 for run in self.runs if _day(run.createdAt) == day.date())

    def ran_since(self, moment: str) -> bool:
        """Whether a run was created at or after ``moment`` (ISO)."""
        return any(run.createdAt >= moment for run in self.runs)

    def owed_keys(self) -> set[str]:
        """The messages some run was woken for: no run is owed for them again."""
        return {message.key for run in self.runs for message in run.messages}


def _day(stamp: str) -> object:
    try:
        return parse_iso(stamp).date()
    except ValueError:
        return None
