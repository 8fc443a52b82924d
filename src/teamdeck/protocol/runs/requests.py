"""What a person (or the runner) writes about runs: a wake or a stop asked of the runner
(runs/requests.jsonl), and the runner's decisions asked and answered (runs/decisions.jsonl).

Every record is one appended line (ULID ``id``, ``at``, ``by``); nothing is rewritten.
The runner (teamdeck/runner/) watches both logs and acts on what is new.
"""

from __future__ import annotations

from typing import Any

from teamdeck.clock import iso
from teamdeck.errors import NotFound, Refused
from teamdeck.ids import new_ulid
from teamdeck.protocol.runs.decisions import RUN_BUDGET, RunDecision, run_decisions
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.paths import check_member, check_team, shown
from teamdeck.store.runs import append_log, requests_log
from teamdeck.store.workspace import Workspace

ANSWERS = {"run-failed": ("retry", "give_up"), RUN_BUDGET: ("raise", "stop")}


def _record(ws: Workspace, type_: str, **fields: Any) -> dict[str, Any]:
    moment = ws.clock()
    return {"id": new_ulid(moment), "type": type_, "at": iso(moment), "by": ws.actor, **fields}


def request(ws: Workspace, kind: str, team: str, member: str) -> dict[str, Any]:
    """Ask the runner to ``wake`` (run now) or ``stop`` (end its run) ``team/member``.

    Raises:
        ReadOnly, NotFound (no such team or member), WriteFailed: nothing written.
    """
    ws.require_writable(f"ask the runner to {kind} {shown(team)}/{shown(member)}")
    check_team(team)
    check_member(member)
    if read_team(ws, team).member(member) is None:
        raise NotFound(f"team {team} has no member '{shown(member)}'")
    record = _record(ws, kind, team=team, member=member)
    append_log(ws, requests_log(ws), record)
    return record


def ask(ws: Workspace, key: str, kind: str, team: str, member: str, title: str, **fields: Any) -> bool:
    """Ask a decision (once per ``key``); False when it was asked before."""
    if any(decision.key == key for decision in run_decisions(ws)):
        return False
    append_log(
        ws,
        ws.run_decisions_log,
        _record(ws, "asked", decision=key, kind=kind, team=team, member=member, title=title, **fields),
    )
    return True


def answer(ws: Workspace, key: str, word: str, note: str | None = None) -> RunDecision:
    """Answer the open decision ``key`` with ``word`` (retry / give_up; raise / stop).
    ``raise`` adds the amount the note names (``5``, ``+5``, ``$5``), else the budget
    the decision was about (the budget doubles).

    Raises:
        NotFound: nothing open with that key. Refused: no such answer, or a note that is
            no amount. ReadOnly, WriteFailed: nothing written.
    """
    ws.require_writable(f"answer {shown(key)}")
    decision = next((d for d in run_decisions(ws) if d.key == key and d.open), None)
    if decision is None:
        raise NotFound(f"no runner decision {shown(key)} is waiting (see `teamdeck decisions list`)")
    if word not in ANSWERS.get(decision.kind, ()):
        raise Refused(f"'{shown(word)}' is no answer to {shown(key)} (use {' or '.join(ANSWERS[decision.kind])})")
    fields: dict[str, Any] = {"decision": key, "answer": word, "note": note}
    if word == "raise":
        fields["raiseUsd"] = _amount(note, decision.allowance)
    append_log(ws, ws.run_decisions_log, _record(ws, "answered", **fields))
    decision.answer, decision.note, decision.raise_usd = word, note, fields.get("raiseUsd")
    return decision


def _amount(note: str | None, allowance: float | None) -> float:
    text = (note or "").strip().lstrip("+$").split(" ")[0]
    if text:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if value > 0:
            return value
        if note and any(char.isdigit() for char in note):
            raise Refused(f"'{shown(note)}' is no amount to raise the budget by (e.g. 5 or +2.50); nothing was written")
    return allowance or 1.0
