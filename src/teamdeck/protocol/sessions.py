"""What live Claude Code sessions tell teamdeck, and the permission prompts a person
answers for them: ``sessions/<team>.jsonl`` (one log per team, outside ``teams/``,
which Claude Code deletes when a session ends).

Two fronts write it, each from its own process:

- ``teamdeck hook`` (cli/hook.py): every hook payload is one event record (``type`` is
  the hook's event name, e.g. ``TeammateIdle``);
- ``teamdeck mcp --channel`` (mcp_server/channel.py): a permission prompt the session
  relays (``notifications/claude/channel/permission_request``), and each message it
  pushed (``channel_push``, so a restarted server never pushes one twice).

A prompt is a decision in the queue (view/sessions.py, kind ``session-permission``)
until a person answers it (``permission_answer``: ``teamdeck decisions decide``, the
TUI) or the session settles it without us (``permission_closed``: the person answered
in the terminal, seen by a hook as the tool running or being denied). The channel
server reads the answers and relays them to the session; the answer is the log, so
every process sees the same state.

The same request reaches teamdeck by several paths (channel, ``PermissionRequest``
hook, a teammate's mailbox frame) and carries no shared id: what they all carry is who
asks, the tool and its input. :func:`fingerprint` makes that one key, and a prompt
arriving while an open prompt of the same member has the same fingerprint joins it
(one decision, several ways to answer; /work/coord/permission-key.md).

Records have the shape of ``events.jsonl`` (``id``, ``ts``, ``type``, ``actor``,
``payload``), so the Events panel tails them like any event log.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ulid import ULID

from teamdeck.clock import iso
from teamdeck.errors import NotFound, Refused
from teamdeck.model.claude import decode_text
from teamdeck.protocol.session_log import (
    ANSWER,
    CLOSED,
    PROMPT,
    PUSH,
    Behavior,
    Prompt,
    fingerprint,
    open_prompt_like,
    prompts,
    pushed,
    read_log,
)
from teamdeck.store.inbox import mark_read, read_inbox
from teamdeck.store.jsonl import append_record
from teamdeck.store.locks import locked
from teamdeck.store.paths import check_member, shown
from teamdeck.store.workspace import Workspace


def _append(ws: Workspace, team: str, type_: str, payload: dict[str, Any], actor: str | None = None) -> dict[str, Any]:
    moment = ws.clock()
    record = {
        "id": str(ULID.from_datetime(moment)),
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
    return _append(ws, team, event, payload, actor)


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
    with locked(path, what=str(ws.rel(path))):
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
        }
        records.append(_append(ws, team, PROMPT, payload, f"agent:{member}@{team}"))
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
    ws: Workspace, team: str, member: str, prompt_id: str, behavior: Behavior, note: str | None = None
) -> Prompt:
    """A person's answer to a session's permission prompt (the channel server relays it).

    Raises:
        NotFound: no such prompt. Refused: it was answered or settled already; nothing
            was written. ReadOnly, WriteFailed, Busy.
    """
    ws.require_writable("answer a permission prompt")
    path = ws.session_log(team)
    with locked(path, what=str(ws.rel(path))):
        prompt = find_prompt(ws, team, member, prompt_id)
        if not prompt.open:
            how = f"{prompt.answer} by {prompt.by}" if prompt.answer else prompt.closed
            raise Refused(f"Permission prompt {shown(prompt_id)} of {shown(member)} is settled already ({how})")
        _append(ws, team, ANSWER, {"prompt": prompt.id, "behavior": behavior, "note": note})
    return find_prompt(ws, team, member, prompt_id)


def close_prompts(ws: Workspace, team: str, member: str, print_: str, why: str, actor: str) -> list[Prompt]:
    """Settle the open prompts of ``member`` for the request ``print_``: the session went
    on without our answer (the person answered in the terminal). Returns those closed."""
    path = ws.session_log(team)
    if not path.exists():
        return []
    with locked(path, what=str(ws.rel(path))):
        records = read_log(ws, team)
        settled = [p for p in prompts(records, team) if p.open and p.member == member and p.fingerprint == print_]
        for prompt in settled:
            _append(ws, team, CLOSED, {"prompt": prompt.id, "why": why}, actor)
    return settled


# --- what a channel server pushes and relays ------------------------------------------

META_LIMIT = 200
"""The longest meta value pushed (the client shows meta as attributes of the tag)."""


@dataclass(frozen=True)
class ChannelItem:
    """One inbox entry as a channel notification: ``content`` (the entry's text) and
    ``meta`` (who sent it, its summary and kind, when, the request it belongs to)."""

    content: str
    meta: dict[str, str]
    sender: str
    timestamp: str


def channel_item(entry: dict[str, Any]) -> ChannelItem:
    """How an inbox entry reads on the channel (meta keys are identifiers, values strings:
    the client drops any other)."""
    text = str(entry.get("text", ""))
    kind = decode_text(text)
    meta = {
        "from": str(entry.get("from", "")),
        "kind": kind.KIND or "message",
        "summary": str(entry.get("summary") or ""),
        "timestamp": str(entry.get("timestamp", "")),
        "request_id": kind.correlation_id or "",
    }
    return ChannelItem(
        content=text,
        meta={key: value[:META_LIMIT] for key, value in meta.items() if value},
        sender=meta["from"],
        timestamp=meta["timestamp"],
    )


def unpushed(ws: Workspace, team: str, member: str) -> list[ChannelItem]:
    """The unread entries of ``member``'s inbox not pushed to its session yet, oldest first."""
    path = ws.inbox(team, member)
    if not path.exists():
        return []
    done = pushed(read_log(ws, team), member)
    items = []
    for entry in read_inbox(path).entries:
        raw = entry.raw
        if entry.message is None or not isinstance(raw, dict) or raw.get("read") is True:
            continue
        item = channel_item(raw)
        if (item.sender, item.timestamp) not in done:
            items.append(item)
    return items


def delivered(ws: Workspace, team: str, member: str, items: list[ChannelItem]) -> None:
    """``items`` reached the session over its channel: recorded once in the session log,
    and marked read in the inbox (which stays their record), so the member's own mailbox
    read does not deliver them a second time.

    Raises:
        ReadOnly, WriteFailed, Busy.
    """
    ws.require_writable("record a channel push")
    wanted = {(item.sender, item.timestamp) for item in items}
    for item in items:
        _append(ws, team, PUSH, {"member": member, "from": item.sender, "timestamp": item.timestamp, **item.meta})
    mark_read(ws.inbox(team, member), lambda raw: (str(raw.get("from")), str(raw.get("timestamp"))) in wanted)


def answers_to_relay(ws: Workspace, team: str, request_ids: set[str]) -> list[tuple[str, Behavior]]:
    """``(request_id, behavior)`` for every prompt answered by a person that one of
    ``request_ids`` (the channel requests a server relayed) belongs to."""
    out: list[tuple[str, Behavior]] = []
    for prompt in prompts(read_log(ws, team), team):
        if prompt.answer is None:
            continue
        out += [(request_id, prompt.answer) for request_id in prompt.request_ids if request_id in request_ids]
    return out
