"""What live Claude Code sessions tell teamdeck, and the permission prompts a person
answers for them: ``sessions/<team>.jsonl`` (one log per team, outside ``teams/``,
which Claude Code deletes when a session ends).

Two fronts write it, each from its own process:

- ``teamdeck hook`` (cli/hook.py): every hook payload is one event record (``type`` is
  the hook's event name, e.g. ``TeammateIdle``);
- ``teamdeck mcp --channel`` (mcp_server/channel.py): a permission prompt the session
  relays (``notifications/claude/channel/permission_request``), and each message it
  pushed (``channel_push``, so a restarted server never pushes one twice).

A prompt is a decision in the queue (view/readers/sessions.py, kind ``session-permission``)
until a person answers it (``permission_answer``: ``teamdeck decisions decide``, the
TUI) or the session settles it without us (``permission_closed``: the person answered
in the terminal, seen by a hook as the tool running or being denied). The channel
server reads the answers and relays them to the session; the answer is the log, so
every process sees the same state.

The same request reaches teamdeck by several paths (channel, ``PermissionRequest``
hook, a teammate's mailbox frame) and carries no shared id: what they all carry is who
asks, the tool and its input. :func:`fingerprint` makes that one key, and a prompt
arriving while an open prompt of the same member has the same fingerprint joins it
(one decision, several ways to answer; docs/protocol.md, "Live sessions").

Records have the shape of ``events.jsonl`` (``id``, ``ts``, ``type``, ``actor``,
``payload``), so the Events panel tails them like any event log.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from teamdeck.clock import iso
from teamdeck.errors import NotFound, Refused
from teamdeck.ids import new_ulid
from teamdeck.protocol.team.session_log import (
    ANSWER,
    CLOSED,
    LEAD,
    PROMPT,
    Behavior,
    Prompt,
    fingerprint,
    open_prompt_like,
    prompts,
    read_log,
)
from teamdeck.store.jsonl import append_record
from teamdeck.store.paths import check_member, shown
from teamdeck.store.workspace import Workspace


def _locked(ws: Workspace, path: Path) -> AbstractContextManager[None]:
    """The log's writer lock, for read-then-append (prompts, answers, closings); imported
    here, since ``teamdeck hook`` appends most events without it (one line, O_APPEND)."""
    from teamdeck.store.locks import locked

    return locked(path, what=str(ws.rel(path)))


def append_session_record(
    ws: Workspace, team: str, type_: str, payload: dict[str, Any], actor: str | None = None
) -> dict[str, Any]:
    moment = ws.clock()
    record = {
        "id": new_ulid(moment),
        "ts": iso(moment),
        "type": type_,
        "actor": actor or ws.actor,
        "payload": {key: value for key, value in payload.items() if value is not None},
    }
    path = ws.session_log(team)
    path.parent.mkdir(parents=True, exist_ok=True)
    append_record(path, record)
    return record


def record_event(ws: Workspace, team: str, event: str, payload: dict[str, Any], actor: str) -> dict[str, Any]:
    """Append one session event (a hook payload) to the team's log.

    Raises:
        ReadOnly, WriteFailed.
    """
    ws.require_writable(f"record the {event} event")
    return append_session_record(ws, team, event, payload, actor)


def record_prompt(
    ws: Workspace,
    team: str,
    member: str,
    *,
    tool: str,
    tool_input: Any,
    description: str = "",
    source: str,
    request_id: str | None = None,
    kind: str = "permission",
) -> Prompt:
    """A permission prompt reached teamdeck: a new decision, or a new path to the open
    one of the same request (same member and fingerprint).

    Returns:
        The prompt, as the log has it after this record.

    Raises:
        ReadOnly, WriteFailed, Busy.
    """
    ws.require_writable("record a permission prompt")
    member = check_member(member)
    print_ = fingerprint(tool, tool_input)
    path = ws.session_log(team)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(ws, path):
        records = read_log(ws, team)
        joined = open_prompt_like(records, team, member, print_)
        prompt_id = joined.id if joined else (request_id or print_)
        if joined is None and any(p.id == prompt_id for p in prompts(records, team)):
            prompt_id = f"{prompt_id}-{len(records)}"  # the same request asked again after an answer
        payload = {
            "prompt": prompt_id,
            "member": member,
            "tool": tool,
            "input": tool_input,
            "description": description or None,
            "fingerprint": print_,
            "source": source,
            "requestId": request_id,
            "kind": None if kind == "permission" else kind,
        }
        records.append(append_session_record(ws, team, PROMPT, payload, f"agent:{member}@{team}"))
    return next(p for p in prompts(records, team) if p.id == prompt_id)


def find_prompt(ws: Workspace, team: str, member: str, prompt_id: str) -> Prompt:
    """The prompt ``prompt_id`` of ``member``.

    Raises:
        NotFound: the log has no such prompt.
    """
    for prompt in prompts(read_log(ws, team), team):
        if prompt.id == prompt_id and prompt.member == member:
            return prompt
    raise NotFound(f"No permission prompt {shown(prompt_id)} of {shown(member)} in {ws.rel(ws.session_log(team))}")


def answer_prompt(
    ws: Workspace,
    team: str,
    member: str,
    prompt_id: str,
    behavior: Behavior,
    note: str | None = None,
    content: dict[str, Any] | None = None,
) -> Prompt:
    """A person's answer to a session's prompt (the channel server or a gating hook
    relays it); ``content``: an accepted elicitation's form answer.

    Raises:
        NotFound: no such prompt. Refused: it was answered or settled already; nothing
            was written. ReadOnly, WriteFailed, Busy.
    """
    ws.require_writable("answer a permission prompt")
    path = ws.session_log(team)
    with _locked(ws, path):
        prompt = find_prompt(ws, team, member, prompt_id)
        if not prompt.open:
            how = f"{prompt.answer} by {prompt.by}" if prompt.answer else prompt.closed
            raise Refused(f"Permission prompt {shown(prompt_id)} of {shown(member)} is settled already ({how})")
        answer = {"prompt": prompt.id, "behavior": behavior, "note": note, "content": content}
        append_session_record(ws, team, ANSWER, answer)
    return find_prompt(ws, team, member, prompt_id)


def close_prompts(ws: Workspace, team: str, member: str, print_: str, why: str, actor: str) -> list[Prompt]:
    """Settle the open prompts of ``member`` for the request ``print_``: the session went
    on without our answer (the person answered in the terminal). Returns those closed."""
    path = ws.session_log(team)
    if not path.exists():
        return []
    with _locked(ws, path):
        records = read_log(ws, team)
        settled = [p for p in prompts(records, team) if p.open and p.member == member and p.fingerprint == print_]
        for prompt in settled:
            append_session_record(ws, team, CLOSED, {"prompt": prompt.id, "why": why}, actor)
    return settled


def answer_same_request(
    ws: Workspace, team: str, member: str, tool: str, tool_input: Any, behavior: Behavior, note: str | None = None
) -> list[Prompt]:
    """Answer the open session prompts that are the same request as a teammate's mailbox
    ``permission_request`` being answered (same team and fingerprint; the member's own
    session, or the lead's, whose dialog shows its teammates' prompts): every route of
    one request gets the one answer. Returns the prompts answered."""
    path = ws.session_log(team)
    if not path.exists():
        return []
    print_ = fingerprint(tool, tool_input)
    with _locked(ws, path):
        same = [p for p in prompts(read_log(ws, team), team) if p.open and p.fingerprint == print_]
        answered = [p for p in same if p.member in (member, LEAD)]
        for prompt in answered:
            append_session_record(ws, team, ANSWER, {"prompt": prompt.id, "behavior": behavior, "note": note})
    return answered
