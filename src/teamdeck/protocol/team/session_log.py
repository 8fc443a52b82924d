"""Reading ``sessions/<team>.jsonl`` (what live Claude Code sessions told teamdeck; the
writers are in protocol/team/sessions.py, whose docstring says what the log holds): the
prompts with their answers applied, and the one key every path of a permission
request shares (:func:`fingerprint`; docs/protocol.md, "Live sessions")."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from teamdeck.store.jsonl import read_records
from teamdeck.store.workspace import Workspace

PROMPT, ANSWER, CLOSED, PUSH = "permission_prompt", "permission_answer", "permission_closed", "channel_push"
"""The record types teamdeck itself writes; every other type is a hook's event name."""
OURS = frozenset((PROMPT, ANSWER, CLOSED, PUSH))
LEAD = "team-lead"
"""The lead's name: its session's dialog also shows its teammates' prompts."""

Behavior = Literal["allow", "deny"]


def fingerprint(tool: str, tool_input: Any) -> str:
    """The key every path of one permission request shares: the tool and its input.

    ``tool_input`` is the input as an object (a hook's ``tool_input``, a frame's
    ``input``) or as the channel's ``input_preview`` text, read as JSON when it parses
    (a preview cut short stays text, and can then only match another channel prompt).
    """
    if isinstance(tool_input, str):
        try:
            tool_input = json.loads(tool_input)
        except ValueError:
            pass
    canonical = json.dumps(tool_input, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{tool}\n{canonical}".encode()).hexdigest()[:12]


class Prompt:
    """One permission prompt of a session, as the log has it so far (made by
    :func:`prompts`, which applies the later records to it).

    Attributes:
        id: the prompt's id: the channel's ``request_id`` when a channel relayed it,
            else its fingerprint (the decision key is ``session:<team>:<member>:<id>``).
        team, member: who asks.
        tool: the tool; ``input``: its input (object, or the preview text).
        description: what the session said it is for.
        fingerprint: see :func:`fingerprint`.
        at: when it was first seen.
        sources: how it reached teamdeck (``channel``, ``hook``).
        request_ids: the channel request ids that belong to it (answers go to each).
        answer: ``allow`` / ``deny`` once a person answered; ``note``, ``by``, ``answered_at``.
        closed: why it is settled without a person's answer here ("" while not).
        kind: ``permission``, or ``elicitation`` (an MCP server's question held by a
            gating hook: ``tool`` is the server, ``input`` the form's schema).
        content: an accepted elicitation's answer (the form's fields).

    A slotted class, not a dataclass: ``teamdeck hook`` reads the prompts on every
    event a session reports, and importing ``dataclasses`` would cost it ~8 ms.
    """

    __slots__ = (
        "id",
        "team",
        "member",
        "tool",
        "input",
        "description",
        "fingerprint",
        "at",
        "kind",
        "sources",
        "request_ids",
        "answer",
        "note",
        "by",
        "answered_at",
        "closed",
        "content",
    )

    def __init__(
        self,
        *,
        id: str,
        team: str,
        member: str,
        tool: str,
        input: Any,
        description: str,
        fingerprint: str,
        at: str,
        kind: str = "permission",
    ) -> None:
        self.id, self.team, self.member, self.tool, self.input = id, team, member, tool, input
        self.description, self.fingerprint, self.at, self.kind = description, fingerprint, at, kind
        self.sources: list[str] = []
        self.request_ids: list[str] = []
        self.answer: Behavior | None = None
        self.note: str | None = None
        self.by: str | None = None
        self.answered_at: str | None = None
        self.closed = ""
        self.content: dict[str, Any] | None = None

    @property
    def open(self) -> bool:
        return self.answer is None and not self.closed

    @property
    def key(self) -> str:
        return f"session:{self.team}:{self.member}:{self.id}"


def read_log(ws: Workspace, team: str) -> list[dict[str, Any]]:
    """Every complete record of the team's session log (bad lines are left to ``validate``)."""
    records, _problems = read_records(ws.session_log(team))
    return records


def session_teams(ws: Workspace) -> list[str]:
    """The teams that have a session log."""
    if not ws.sessions_dir.is_dir():
        return []
    return sorted(path.stem for path in ws.sessions_dir.glob("*.jsonl"))


def prompts(records: list[dict[str, Any]], team: str) -> list[Prompt]:
    """The prompts of a log, oldest first, with their answers and closings applied."""
    found: dict[str, Prompt] = {}
    by_request: dict[str, Prompt] = {}
    for record in records:
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == PROMPT:
            prompt = found.get(str(payload.get("prompt")))
            if prompt is None:
                prompt = Prompt(
                    id=str(payload.get("prompt")),
                    team=team,
                    member=str(payload.get("member", "")),
                    tool=str(payload.get("tool", "")),
                    input=payload.get("input"),
                    description=str(payload.get("description", "")),
                    fingerprint=str(payload.get("fingerprint", "")),
                    at=str(record.get("ts", "")),
                    kind=str(payload.get("kind", "permission")),
                )
                found[prompt.id] = prompt
            source, request_id = payload.get("source"), payload.get("requestId")
            if isinstance(source, str) and source not in prompt.sources:
                prompt.sources.append(source)
            if isinstance(request_id, str) and request_id not in prompt.request_ids:
                prompt.request_ids.append(request_id)
                by_request[request_id] = prompt
        elif kind in (ANSWER, CLOSED):
            prompt = found.get(str(payload.get("prompt")))
            if prompt is None or not prompt.open:
                continue  # the first settling wins, as in the client
            if kind == ANSWER and payload.get("behavior") in ("allow", "deny"):
                prompt.answer = payload["behavior"]
                prompt.note = payload.get("note")
                prompt.content = payload["content"] if isinstance(payload.get("content"), dict) else None
                prompt.by = str(record.get("actor", ""))
                prompt.answered_at = str(record.get("ts", ""))
            elif kind == CLOSED:
                prompt.closed = str(payload.get("why", "settled in the session"))
    return list(found.values())


def open_prompt_like(records: list[dict[str, Any]], team: str, member: str, print_: str) -> Prompt | None:
    """The open prompt of ``member`` with fingerprint ``print_`` (the one a new path joins)."""
    for prompt in prompts(records, team):
        if prompt.open and prompt.member == member and prompt.fingerprint == print_:
            return prompt
    return None


def pushed(records: list[dict[str, Any]], member: str) -> set[tuple[str, str]]:
    """The ``(from, timestamp)`` of every entry already pushed to ``member``."""
    out = set()
    for record in records:
        payload = record.get("payload")
        if record.get("type") == PUSH and isinstance(payload, dict) and payload.get("member") == member:
            out.add((str(payload.get("from")), str(payload.get("timestamp"))))
    return out
