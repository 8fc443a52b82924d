"""The decision kinds of live sessions (view/readers/sessions.py builds their rows): a session's
permission prompt, and an MCP server's question to the person (an elicitation) that a
gating ``teamdeck hook`` holds for an answer. Listed in :data:`SPECS`, which
decisions/registry.py registers with every other kind's.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from teamdeck.decisions.spec import (
    Answer,
    Answered,
    DecisionSpec,
    Part,
    Run,
    detail,
    member_question,
    ours,
    team_json,
)
from teamdeck.errors import Refused
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.workspace import Decision


def _answer_session_prompt(*, approve: bool) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.team.sessions import answer_prompt

        team, member, prompt_id = decision.team or "", decision.member or "", decision.request_id or ""
        behavior: Literal["allow", "deny"] = "allow" if approve else "deny"
        answer_prompt(ws, team, member, prompt_id, behavior, note)
        summary = f"permission {'allowed' if approve else 'denied'}: {member} ({prompt_id}, live session)"
        return Answered(
            summary=summary, data={"team": team, "member": member, "prompt": prompt_id, "behavior": behavior}
        )

    return run


SESSION_PERMISSION = DecisionSpec(
    kind="session-permission",
    label="permit",
    heading="permission prompt of a live session",
    answers=(
        Answer(
            id="session-permission-allow",
            action="allow",
            positive=True,
            label="Allow",
            command="Allow the selected session's permission prompt",
            help="session permission prompt: allow (the tool runs)",
            note="optional",
            note_label="Note",
            question=lambda d: (
                *member_question("Allow ", d, " to use "),
                Part(d.tool, "warning", limit=64),
                ours("?", "bold"),
            ),
            run=_answer_session_prompt(approve=True),
            outcome="The session's prompt is answered allow over its channel: the tool runs; a note is only logged.",
        ),
        Answer(
            id="session-permission-deny",
            action="deny",
            positive=False,
            label="Deny",
            command="Deny the selected session's permission prompt",
            help="session permission prompt: deny",
            note="optional",
            note_label="Reason",
            question=lambda d: (
                *member_question("Deny ", d, " the use of "),
                Part(d.tool, "warning", limit=64),
                ours("?", "bold"),
            ),
            run=_answer_session_prompt(approve=False),
            outcome="The session's prompt is answered deny over its channel: the model is told the tool was denied.",
        ),
    ),
    what=lambda decision: f"prompt {decision.request_id}",
    alert_reason="asks for permission in its live session",
    detail=lambda decision, short: detail(
        decision,
        short,
        (ours("permission prompt", "bold"), ours("  tool ", "warning"), Part(decision.tool, "warning", limit=64)),
        body_label="input:\n",
        request=True,
    ),
    json=lambda decision: {**team_json(decision), "tool": decision.tool, "input": decision.body},
)
"""A live session's permission prompt (protocol/team/sessions.py): relayed by its channel
or seen by a hook, answered back over the channel."""


def content_for(decision: Decision, note: str | None) -> dict[str, Any]:
    """The form's content a person gives to accept an elicitation: the note, a JSON
    object valid against the form's schema (``{}`` without a note).

    Raises:
        Refused: not a JSON object, or not what the form asks (one line); nothing written.
    """
    try:
        content = json.loads(note) if note else {}
    except ValueError as err:
        raise Refused(f"Could not accept {decision.key}: the note must be the form's answer as JSON ({err})") from err
    if not isinstance(content, dict):
        raise Refused(f"Could not accept {decision.key}: the note must be a JSON object (the form's fields)")
    try:
        schema = json.loads(decision.body) if decision.body else {}
    except ValueError:
        schema = {}
    if isinstance(schema, dict) and schema.get("type") == "object":
        import jsonschema

        problem = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(content))
        if problem is not None:
            where = "$" + "".join(f".{part}" for part in problem.absolute_path)
            raise Refused(f"Could not accept {decision.key}: {where}: {problem.message}; nothing was written")
    return content


def _answer_elicitation(*, accept: bool) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.team.sessions import answer_prompt

        team, member, prompt_id = decision.team or "", decision.member or "", decision.request_id or ""
        content = content_for(decision, note) if accept else None
        behavior: Literal["allow", "deny"] = "allow" if accept else "deny"
        answer_prompt(ws, team, member, prompt_id, behavior, None, content)
        summary = f"{'accepted' if accept else 'declined'}: {decision.tool} ({prompt_id}, live session)"
        return Answered(summary=summary, data={"team": team, "member": member, "prompt": prompt_id, "content": content})

    return run


SESSION_ELICITATION = DecisionSpec(
    kind="session-elicitation",
    label="form",
    heading="an MCP server's question to you",
    answers=(
        Answer(
            id="session-elicitation-accept",
            action="accept",
            positive=True,
            label="Accept",
            command="Accept the selected MCP question (the note is the form's answer, as JSON)",
            help="MCP question: accept (note: the form as JSON)",
            note="optional",
            note_label="Answer (JSON)",
            question=lambda d: (ours("Accept ", "bold"), Part(d.title, limit=120), ours("?", "bold")),
            run=_answer_elicitation(accept=True),
            outcome="The server gets accept and the note's JSON object as the form's content (checked against it).",
        ),
        Answer(
            id="session-elicitation-decline",
            action="decline",
            positive=False,
            label="Decline",
            command="Decline the selected MCP question",
            help="MCP question: decline",
            note="optional",
            note_label="Note",
            question=lambda d: (ours("Decline ", "bold"), Part(d.title, limit=120), ours("?", "bold")),
            run=_answer_elicitation(accept=False),
            outcome="The server gets decline; the note is only logged.",
        ),
    ),
    what=lambda decision: f"question {decision.request_id}",
    alert_reason="passes on an MCP server's question to you",
    detail=lambda decision, short: detail(
        decision,
        short,
        (ours("MCP question", "bold"), ours("  from ", "muted"), Part(decision.tool, limit=64)),
        body_label="form:\n",
        request=True,
    ),
    json=lambda decision: {**team_json(decision), "server": decision.tool, "form": decision.body},
)
"""An MCP server's elicitation in a live session, held by ``teamdeck hook --gate``."""

SPECS = (SESSION_PERMISSION, SESSION_ELICITATION)
"""The live sessions' kinds, in the order decisions/registry.py registers them."""
