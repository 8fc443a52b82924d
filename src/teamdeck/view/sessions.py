"""Live sessions' permission prompts (protocol/sessions.py) as decisions of the queue:
one ``session-permission`` decision per open prompt, whatever paths it came by.

A teammate's request that also reached the lead's mailbox is already a ``permission``
decision (view/teams.py): the session prompt for the same request (same member, tool
and input: :func:`~teamdeck.protocol.sessions.fingerprint`) is then left out, so the
queue shows the request once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from teamdeck.errors import TeamdeckError
from teamdeck.protocol.session_log import Prompt, fingerprint, prompts, read_log, session_teams
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot import Decision


def _body(prompt: Prompt) -> str:
    if isinstance(prompt.input, str):
        return prompt.input
    return json.dumps(prompt.input, indent=2, ensure_ascii=False)


def prompt_decision(prompt: Prompt) -> Decision:
    """The decision a person sees for ``prompt``."""
    via = " + ".join(prompt.sources) or "session"
    return Decision(
        key=prompt.key,
        kind="session-permission",
        state="blocked" if prompt.open else (prompt.answer or "closed"),
        created_at=prompt.at,
        source=f"team {prompt.team}",
        title=f"{prompt.member} asks to use {prompt.tool}"
        + (f": {prompt.description}" if prompt.description else "")
        + f" (live session, via {via})",
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


def _mailbox_prints(team_gates: Iterable[Decision]) -> set[tuple[str, str, str]]:
    """(team, member, fingerprint) of every open mailbox permission request."""
    return {
        (gate.team or "", gate.member or "", fingerprint(gate.tool, gate.body))
        for gate in team_gates
        if gate.kind == "permission" and gate.open
    }


def session_decisions(ws: Workspace, team_gates: Iterable[Decision] = ()) -> tuple[Decision, ...]:
    """Every open session prompt of the workspace, as a decision (not those the mailbox
    already asks: see the module docstring)."""
    taken = _mailbox_prints(team_gates)
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
