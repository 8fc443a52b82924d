"""A Claude Code hook's payload, recorded as a team event (``teamdeck hook``).

Claude Code runs the hook command with the payload as JSON on stdin (every payload
has ``hook_event_name``, ``session_id``, ``cwd``...; FORMAT.md, "Hook payloads"). Each
one becomes an event of the team's session log (protocol/team/sessions.py), which the Events
panel tails. Some events do more (what 2.1.332 lets a hook's answer decide is in the
binary's output schema, quoted in the comments below):

- ``PermissionRequest``: a ``session-permission`` decision in the queue (joining the
  channel's prompt for the same request, if any). With ``gate_s`` the hook waits that
  long for a person's answer and returns it as the prompt's answer
  (``hookSpecificOutput.decision.behavior`` allow/deny); else it returns at once and
  the client shows its own dialog, as without the hook.
- ``PostToolUse`` / ``PostToolUseFailure`` / ``PermissionDenied``: the request was
  settled in the session (the person answered in the terminal, or a rule did): its
  open prompt is closed in the queue.
- ``Elicitation`` (an MCP server asks the person a question, a form or a URL): with
  ``gate_s`` a ``session-elicitation`` decision; accepted (the note, a JSON object, is
  the form's content) or declined in teamdeck within ``gate_s``, the hook returns it
  (``hookSpecificOutput.action`` accept/decline and ``content``); else the client shows
  its own form.
- ``TeammateIdle``, ``TaskCreated``, ``TaskCompleted``, ``Notification``: events only.

Who: ``team``/``member`` given to the command, else the payload's ``team_name`` /
``teammate_name``, else what an earlier payload of the same session said (a teammate's
tool events carry neither: its ``TeammateIdle`` and ``Task*`` payloads do, and each
session's answer is kept in ``sessions/by-session/<session_id>.json``), else the
session's implicit team ``session-<first 8 characters of session_id>`` and its lead.

The tool events that settle a prompt are recorded only when they did (a session fires
``PostToolUse`` on every call: the log keeps what a person may want to see).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, NamedTuple

from teamdeck.errors import InvalidFile, Refused
from teamdeck.protocol.team.session_log import fingerprint, prompts, read_log
from teamdeck.protocol.team.sessions import close_prompts, record_event, record_prompt
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.loaders import parse_json
from teamdeck.store.paths import InvalidId, check_id
from teamdeck.store.workspace import Workspace

LEAD = "team-lead"
VALUE_LIMIT = 2000
"""The longest string kept of a payload's values (a tool's response can be megabytes)."""
POLL_S = 0.25
SETTLED = {
    "PostToolUse": "the tool ran (answered in the session)",
    "PostToolUseFailure": "the tool ran and failed (answered in the session)",
    "PermissionDenied": "denied in the session",
}


class HookResult(NamedTuple):
    """What the hook did: the event recorded, and what to print for the client (``{}``:
    nothing, the client goes on as without the hook). A NamedTuple, not a dataclass:
    importing ``dataclasses`` would cost every ``hook`` ~8 ms."""

    team: str
    member: str
    event: str
    output: dict[str, Any]


def _index(ws: Workspace, session: str) -> Path | None:
    try:
        return ws.sessions_dir / "by-session" / f"{check_id(session.lower(), 'session id')}.json"
    except InvalidId:
        return None


def _recall(ws: Workspace, session: str) -> tuple[str | None, str | None]:
    path = _index(ws, session)
    try:
        known = json.loads(path.read_text()) if path is not None else None
    except (OSError, ValueError):
        return None, None
    if not isinstance(known, dict):
        return None, None
    return known.get("team"), known.get("member")


def _remember(ws: Workspace, session: str, team: str, member: str) -> None:
    path = _index(ws, session)
    if path is None or _recall(ws, session) == (team, member):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_replace(path, json.dumps({"team": team, "member": member}).encode(), crash_prefix="session-index")


def who(ws: Workspace, payload: dict[str, Any], team: str | None, member: str | None) -> tuple[str, str]:
    """The team and member a payload is about (see the module docstring)."""
    session = str(payload.get("session_id") or "")
    named_team = payload.get("team_name") if isinstance(payload.get("team_name"), str) else None
    named_member = payload.get("teammate_name") if isinstance(payload.get("teammate_name"), str) else None
    if named_team and named_member and session:
        _remember(ws, session, named_team, named_member)
    elif session and not (named_team or team):
        named_team, recalled_member = _recall(ws, session)
        named_member = named_member or recalled_member
    found_team = team or named_team or (f"session-{session[:8].lower()}" if session else None)
    if not found_team:
        raise Refused("hook payload on stdin: no team_name and no session_id; pass --team")
    return found_team, member or named_member or LEAD


def _trimmed(value: Any) -> Any:
    if isinstance(value, str):
        return value if len(value) <= VALUE_LIMIT else value[:VALUE_LIMIT] + f"… ({len(value)} characters)"
    if isinstance(value, dict):
        return {key: _trimmed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_trimmed(item) for item in value[:100]]
    return value


def parse_payload(text: str) -> dict[str, Any]:
    """The payload read from stdin.

    Raises:
        Refused: not a JSON object with a ``hook_event_name`` (one line: where and why).
    """
    try:
        payload = parse_json(text.encode("utf-8", "surrogatepass"), "hook payload on stdin")
    except InvalidFile as err:  # not JSON, NaN, a duplicate key, or nested too deep (B25)
        raise Refused(str(err)) from None
    if not isinstance(payload, dict) or not isinstance(payload.get("hook_event_name"), str):
        raise Refused("hook payload on stdin: not an object with a hook_event_name")
    return payload


def handle(
    ws: Workspace, payload: dict[str, Any], *, team: str | None = None, member: str | None = None, gate_s: float = 0
) -> HookResult:
    """Record ``payload`` and do what its event asks (module docstring).

    Raises:
        Refused: no team can be told from it. ReadOnly, WriteFailed, Busy.
    """
    event = str(payload["hook_event_name"])
    ws.require_writable(f"record the {event} hook")
    team, member = who(ws, payload, team, member)
    actor = f"agent:{member}@{team}"
    kept = {key: _trimmed(value) for key, value in payload.items() if key != "hook_event_name"}
    output: dict[str, Any] = {}
    tool, tool_input = str(payload.get("tool_name", "")), payload.get("tool_input")
    if event in SETTLED:
        closed = close_prompts(ws, team, member, fingerprint(tool, tool_input), SETTLED[event], actor) if tool else []
        if closed:
            record_event(ws, team, event, kept, actor)
        return HookResult(team, member, event, output)
    record_event(ws, team, event, kept, actor)
    if event == "Elicitation" and gate_s > 0:
        output = _elicit(ws, team, member, payload, gate_s)
    elif event == "PermissionRequest" and tool:
        prompt = record_prompt(ws, team, member, tool=tool, tool_input=tool_input, source="hook")
        behavior = _wait_for_answer(ws, team, prompt.id, gate_s) if gate_s > 0 else None
        if behavior is not None:
            # 2.1.332: hookSpecificOutput {hookEventName: "PermissionRequest", decision:
            # {behavior: "allow", updatedInput?} | {behavior: "deny", message?, interrupt?}}
            decision: dict[str, Any] = {"behavior": behavior[0]}
            if behavior[0] == "deny":
                decision["message"] = behavior[1] or "Denied in teamdeck"
            output = {"hookSpecificOutput": {"hookEventName": event, "decision": decision}}
    return HookResult(team, member, event, output)


def _elicit(ws: Workspace, team: str, member: str, payload: dict[str, Any], gate_s: float) -> dict[str, Any]:
    """An MCP server's question held as a decision for ``gate_s`` seconds. 2.1.332:
    hookSpecificOutput {hookEventName: "Elicitation", action: accept|decline|cancel, content?}."""
    server = str(payload.get("mcp_server_name") or "an MCP server")
    form = payload.get("requested_schema") or {"url": payload.get("url")}
    prompt = record_prompt(
        ws, team, member, tool=server, tool_input=form, description=str(payload.get("message", "")),
        source="hook", request_id=payload.get("elicitation_id"), kind="elicitation",
    )  # fmt: skip
    answer = _wait_for_answer(ws, team, prompt.id, gate_s)
    if answer is None:
        return {}  # no answer in time: the client asks in its terminal
    settled = next(p for p in prompts(read_log(ws, team), team) if p.id == prompt.id)
    reply: dict[str, Any] = {"hookEventName": "Elicitation", "action": "accept" if answer[0] == "allow" else "decline"}
    if answer[0] == "allow":
        reply["content"] = settled.content or {}
    return {"hookSpecificOutput": reply}


def _wait_for_answer(ws: Workspace, team: str, prompt_id: str, gate_s: float) -> tuple[str, str | None] | None:
    """A person's answer to the prompt within ``gate_s`` seconds: (behavior, note)."""
    deadline = time.monotonic() + gate_s
    while True:
        for prompt in prompts(read_log(ws, team), team):
            if prompt.id == prompt_id and prompt.answer is not None:
                return prompt.answer, prompt.note
            if prompt.id == prompt_id and prompt.closed:
                return None
        if time.monotonic() >= deadline:
            return None
        time.sleep(POLL_S)
