"""The decisions ``teamdeck run`` asks a person (runs/decisions.jsonl), folded with their
answers: a member whose run failed every retry (``run-failed``: retry / give up), a
member or team past its budget (``run-budget``: raise the budget / stop).

The log is append-only: an ``asked`` record (its ``decision`` key says what it is about),
then at most one ``answered`` record per key that counts (a second answer is ignored).
Reads only; protocol/runs/requests.py writes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from teamdeck.store.runs import read_log
from teamdeck.store.workspace import Workspace

RUN_FAILED = "run-failed"
RUN_BUDGET = "run-budget"


@dataclass
class RunDecision:
    """One decision the runner asked, folded with its answer (if any)."""

    key: str
    kind: str
    team: str
    member: str
    asked_at: str
    title: str
    reason: str = ""
    tail: str = ""
    run: str | None = None
    allowance: float | None = None
    answer: str | None = None
    answered_by: str | None = None
    answered_at: str | None = None
    note: str | None = None
    raise_usd: float | None = None
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        return self.answer is None


def run_decisions(ws: Workspace) -> list[RunDecision]:
    """Every decision of runs/decisions.jsonl with its answer, oldest first."""
    return fold_decisions(read_log(ws.run_decisions_log))


def fold_decisions(records: Iterable[dict[str, object]]) -> list[RunDecision]:
    found: dict[str, RunDecision] = {}
    for record in records:
        key = str(record.get("decision", ""))
        if record.get("type") == "asked" and key not in found:
            found[key] = RunDecision(
                key=key,
                kind=str(record.get("kind", "")),
                team=str(record.get("team", "")),
                member=str(record.get("member", "")),
                asked_at=str(record.get("at", "")),
                title=str(record.get("title", "")),
                reason=str(record.get("reason", "")),
                tail=str(record.get("tail", "")),
                run=record.get("run") if isinstance(record.get("run"), str) else None,  # type: ignore[arg-type]
                allowance=_number(record.get("allowance")),
            )
        elif record.get("type") == "answered" and key in found and found[key].open:
            decision = found[key]
            decision.answer = str(record.get("answer", ""))
            decision.answered_by = str(record.get("by", ""))
            decision.answered_at = str(record.get("at", ""))
            decision.note = record.get("note") if isinstance(record.get("note"), str) else None  # type: ignore[assignment]
            decision.raise_usd = _number(record.get("raiseUsd"))
    return list(found.values())


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def raised_usd(decisions: Iterable[RunDecision], team: str, member: str) -> float:
    """How much the budget of ``team/member`` (member ``*``: the team's) was raised."""
    return sum(d.raise_usd or 0.0 for d in decisions if d.kind == RUN_BUDGET and d.team == team and d.member == member)
