"""Budgets: the cost each run reports, added up per member and per team, against
``budget_usd`` (a member's) and ``team_budget_usd`` (a team's), each raised by the
``raise`` answers to ``run-budget`` decisions. Past a budget no run starts and a
decision waits, asked once per budget level (a ``stop`` answer is not asked again
until the budget changes)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from teamdeck.model.agents import AgentConfig
from teamdeck.protocol.runs.decisions import RUN_BUDGET, RunDecision, raised_usd
from teamdeck.runtime.config import AgentsConfig


@dataclass(frozen=True)
class Overrun:
    """A budget reached: who (member ``*``: the team), what was spent and allowed, and
    the budget as configured (what a ``raise`` adds by default)."""

    team: str
    member: str
    spent: float
    allowance: float
    step: float

    @property
    def key(self) -> str:
        return f"{RUN_BUDGET}:{self.team}/{self.member}:{self.allowance:g}"

    @property
    def who(self) -> str:
        return self.member if self.member != "*" else f"team {self.team}"

    @property
    def title(self) -> str:
        return f"{self.who} spent ${self.spent:.2f} of its ${self.allowance:.2f} budget: raise the budget / stop"

    @property
    def reason(self) -> str:
        return f"no more runs of {self.who} start until the budget is raised (by ${self.step:g}, or the note's amount)"


def overrun(
    agents: AgentsConfig,
    config: AgentConfig,
    decisions: Sequence[RunDecision],
    spent: Mapping[tuple[str, str], float],
    team: str,
    member: str,
) -> Overrun | None:
    """The budget ``team/member`` has reached (its own first, then its team's), or None."""
    if config.budget_usd is not None:
        allowance = config.budget_usd + raised_usd(decisions, team, member)
        used = spent.get((team, member), 0.0)
        if used >= allowance:
            return Overrun(team, member, used, allowance, config.budget_usd)
    team_budget = agents.team_budget(team)
    if team_budget is not None:
        allowance = team_budget + raised_usd(decisions, team, "*")
        used = sum(cost for (name, _member), cost in spent.items() if name == team)
        if used >= allowance:
            return Overrun(team, "*", used, allowance, team_budget)
    return None
