"""Budgets: the cost each run reports, added up per member and per team, against
``budget_usd`` (a member's) and ``team_budget_usd`` (a team's), each raised by the
``raise`` answers to ``run-budget`` decisions. Past a budget no run starts and a
decision waits, asked once per budget level (a ``stop`` answer is not asked again
until the budget changes).

A run whose cost could not be read (``costProblem``: a cost of NaN, -1, a string, a
result line too long to read) may have spent anything, so it is never counted as
free: a member with a budget (its own or its team's) is held at once, as past its
budget, and the decision names the run and what was wrong. ``raise`` accepts that
run's cost as unknown and adds the amount (the note's, else the budget again); ``stop``
keeps the member stopped (asked again only when the budget changes). A member without
a budget is not held: the problem is only recorded and shown."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from teamdeck.model.agents import AgentConfig
from teamdeck.protocol.runs.decisions import RUN_BUDGET, RunDecision, raised_usd
from teamdeck.runtime.config import AgentsConfig
from teamdeck.text import one_line


@dataclass(frozen=True)
class Unpriced:
    """A run whose cost could not be read: its id and what was wrong."""

    run: str
    problem: str


@dataclass(frozen=True)
class Overrun:
    """A budget reached: who (member ``*``: the team), what was spent and allowed, and
    the budget as configured (what a ``raise`` adds by default); ``unpriced``: the run
    whose cost could not be read that holds it, when that is why."""

    team: str
    member: str
    spent: float
    allowance: float
    step: float
    unpriced: Unpriced | None = None

    @property
    def key(self) -> str:
        base = f"{RUN_BUDGET}:{self.team}/{self.member}:{self.allowance:g}"
        return base if self.unpriced is None else f"{base}:{self.unpriced.run}"

    @property
    def run(self) -> str | None:
        return self.unpriced.run if self.unpriced is not None else None

    @property
    def who(self) -> str:
        return self.member if self.member != "*" else f"team {self.team}"

    @property
    def title(self) -> str:
        if self.unpriced is not None:
            problem = one_line(self.unpriced.problem, 160)
            return f"{self.who}: the cost of run {self.unpriced.run} could not be read ({problem}): raise the budget / stop"
        return f"{self.who} spent ${self.spent:.2f} of its ${self.allowance:.2f} budget: raise the budget / stop"

    @property
    def reason(self) -> str:
        if self.unpriced is not None:
            return (
                f"it may have spent anything: no more runs of {self.who} start until a person accepts it "
                f"(raise: by ${self.step:g}, or the note's amount)"
            )
        return f"no more runs of {self.who} start until the budget is raised (by ${self.step:g}, or the note's amount)"


def overrun(
    agents: AgentsConfig,
    config: AgentConfig,
    decisions: Sequence[RunDecision],
    spent: Mapping[tuple[str, str], float],
    team: str,
    member: str,
    unpriced: Mapping[tuple[str, str], Sequence[Unpriced]] | None = None,
) -> Overrun | None:
    """The budget ``team/member`` has reached (its own first, then its team's), or None.
    ``unpriced``: each member's runs whose cost could not be read (see the module)."""
    unpriced = unpriced or {}
    if config.budget_usd is not None:
        allowance = config.budget_usd + raised_usd(decisions, team, member)
        used = spent.get((team, member), 0.0)
        held = _unaccepted(unpriced.get((team, member), ()), decisions)
        if held is not None or used >= allowance:
            return Overrun(team, member, used, allowance, config.budget_usd, held)
    team_budget = agents.team_budget(team)
    if team_budget is not None:
        allowance = team_budget + raised_usd(decisions, team, "*")
        used = sum(cost for (name, _member), cost in spent.items() if name == team)
        held = _unaccepted((run for (name, _m), runs in unpriced.items() if name == team for run in runs), decisions)
        if held is not None or used >= allowance:
            return Overrun(team, "*", used, allowance, team_budget, held)
    return None


def _unaccepted(runs: Iterable[Unpriced], decisions: Sequence[RunDecision]) -> Unpriced | None:
    """The first of ``runs`` no ``raise`` answer accepted (of a decision about it)."""
    accepted = {d.run for d in decisions if d.kind == RUN_BUDGET and d.answer == "raise" and d.run is not None}
    return next((run for run in runs if run.run not in accepted), None)
