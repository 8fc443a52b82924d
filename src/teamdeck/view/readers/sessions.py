"""Live sessions' permission prompts (protocol/team/sessions.py) as decisions of the queue:
one ``session-permission`` decision per open prompt, whatever paths it came by.

A teammate's request that also reached the lead's mailbox is already a ``permission``
decision (view/readers/team_decisions.py): the session prompt for the same request (same team,
tool and input: :func:`~teamdeck.protocol.team.session_log.fingerprint`; from the member's
own session, or the lead's, whose dialog shows its teammates' prompts) is then left
out, so the queue shows the request once; answering that decision answers the session
prompt too (decisions/kinds.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from teamdeck.errors import TeamdeckError
from teamdeck.protocol.team.session_log import LEAD, OURS, Prompt, fingerprint, prompts, read_log, session_teams
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.workspace import Decision, TeamView


def _body(prompt: Prompt) -> str:
    if isinstance(prompt.input, str):
        return prompt.input
    return json.dumps(prompt.input, indent=2, ensure_ascii=False)


def prompt_decision(prompt: Prompt) -> Decision:
    """The decision a person sees for ``prompt``."""
    via = " + ".join(prompt.sources) or "session"
    if prompt.kind == "elicitation":
        title = f"{prompt.tool} asks {prompt.member}'s person: {prompt.description} (live session)"
    else:
        title = f"{prompt.member} asks to use {prompt.tool}" + (f": {prompt.description}" if prompt.description else "")
        title += f" (live session, via {via})"
    return Decision(
        key=prompt.key,
        kind=f"session-{prompt.kind}",
        state="blocked" if prompt.open else (prompt.answer or "closed"),
        created_at=prompt.at,
        source=f"team {prompt.team}",
        title=title,
        tool=prompt.tool,
        reason=prompt.description,
        agent=prompt.member,
        body=_body(prompt),
        team=prompt.team,
        member=prompt.member,
        request_id=prompt.id,
        decided_by=prompt.by,
        decided_at=prompt.answered_at,
        note=prompt.note or (prompt.closed or None),
    )


def _mailbox_prints(team_decisions: Iterable[Decision]) -> set[tuple[str, str, str]]:
    """(team, member, fingerprint) of every open mailbox permission or sandbox host
    request, and the same as the lead's (the lead's session dialog shows its teammates'
    prompts)."""
    prints = set()
    for gate in team_decisions:
        if gate.kind in ("permission", "sandbox-permission") and gate.open:
            print_ = fingerprint(gate.tool, gate.body)
            prints |= {(gate.team or "", gate.member or "", print_), (gate.team or "", LEAD, print_)}
    return prints


def session_decisions(ws: Workspace, team_decisions: Iterable[Decision] = ()) -> tuple[Decision, ...]:
    """Every open session prompt of the workspace, as a decision (not those the mailbox
    already asks: see the module docstring)."""
    taken = _mailbox_prints(team_decisions)
    decisions = []
    for team in session_teams(ws):
        try:
            found = prompts(read_log(ws, team), team)
        except TeamdeckError:
            continue  # an unreadable log is reported by ``teamdeck validate``
        for prompt in found:
            if prompt.open and (team, prompt.member, prompt.fingerprint) not in taken:
                decisions.append(prompt_decision(prompt))
    return tuple(decisions)


def last_events(records: list[dict[str, Any]]) -> dict[str, str]:
    """Member name -> its last hook event in words (``TaskCompleted "Write notes" at …``)."""
    last: dict[str, str] = {}
    for record in records:
        payload, actor = record.get("payload"), str(record.get("actor", ""))
        if record.get("type") in OURS or not isinstance(payload, dict) or not actor.startswith("agent:"):
            continue
        member = actor[len("agent:") :].rsplit("@", 1)[0]
        subject = payload.get("task_subject") or payload.get("tool_name") or payload.get("message")
        what = f' "{subject}"' if isinstance(subject, str) and subject else ""
        last[member] = f"{record.get('type')}{what} at {record.get('ts', '?')}"
    return last


def with_session_events(view: TeamView, last: dict[str, str]) -> TeamView:
    """``view`` with each member's last hook event (:func:`last_events`): the same view
    when nothing changes (views are compared by identity downstream)."""
    if all(last.get(m.name, m.session_event) == m.session_event for m in view.members):
        return view
    members = tuple(replace(m, session_event=last.get(m.name, m.session_event)) for m in view.members)
    return replace(view, members=members)
