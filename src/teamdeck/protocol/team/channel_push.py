"""What a channel server (mcp_server/channel.py) pushes into its session and relays back:
the member's unread inbox entries as channel messages, once (recorded in the session
log, protocol/team/sessions.py, and marked read in the inbox, which stays their record),
and a person's answers to the permission prompts it relayed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamdeck.formats.registry import team_format
from teamdeck.model.team import decode_text
from teamdeck.protocol.team.session_log import PUSH, Behavior, prompts, pushed, read_log
from teamdeck.protocol.team.sessions import append_session_record
from teamdeck.store.workspace import Workspace

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


def inboxes_dir(ws: Workspace, team: str) -> Path:
    """The directory of the team's inboxes, as its format keeps them: what a channel
    watches for messages to push."""
    return team_format(ws, team).inboxes_dir(ws, team)


def unpushed(ws: Workspace, team: str, member: str) -> list[ChannelItem]:
    """The unread entries of ``member``'s inbox not pushed to its session yet, oldest first."""
    files = team_format(ws, team)
    path = files.inbox(ws, team, member)
    if not path.exists():
        return []
    done = pushed(read_log(ws, team), member)
    items = []
    for entry in files.read_inbox(path).entries:
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
        append_session_record(
            ws, team, PUSH, {"member": member, "from": item.sender, "timestamp": item.timestamp, **item.meta}
        )
    files = team_format(ws, team)
    files.mark_read(
        files.inbox(ws, team, member), lambda raw: (str(raw.get("from")), str(raw.get("timestamp"))) in wanted
    )


def answers_to_relay(ws: Workspace, team: str, request_ids: set[str]) -> list[tuple[str, Behavior]]:
    """``(request_id, behavior)`` for every prompt answered by a person that one of
    ``request_ids`` (the channel requests a server relayed) belongs to."""
    out: list[tuple[str, Behavior]] = []
    for prompt in prompts(read_log(ws, team), team):
        if prompt.answer is None:
            continue
        out += [(request_id, prompt.answer) for request_id in prompt.request_ids if request_id in request_ids]
    return out
