"""Ripperdoc inboxes: ``teams/<team>/inboxes/<member>.json``, translated to teamdeck's
message shape and back.

A Ripperdoc inbox is a JSON array that is never pruned: an entry is
``{id, team_name, recipient, sender, message_type, content, created_at, metadata, read}``
with ``created_at`` in epoch seconds, the summary and a protocol frame's request id in
``metadata``, and ``read`` set once the recipient's loop has taken it (what teamdeck
calls delivered). It is read here as ``{from, text, summary, timestamp, read, id}``.

Sending is what Ripperdoc's ``send_team_message`` does, in one hold of the team's flock:
one line in Ripperdoc's own ``messages.jsonl``, ``version`` and ``updatedAt`` of
config.json bumped, and the entry appended to the recipient's inbox, its
``message_type`` the protocol kind its text carries (``shutdown_request``,
``shutdown_response`` for an approval or a rejection, ``plan_approval_response``...) so
Ripperdoc orders and routes it as one of its own. An entry without ``content`` is one
Ripperdoc marks read and never shows: it is reported, not read as a message.

Ripperdoc wraps what it shows its model in ``<teammate-message teammate_id=...>`` without
escaping the body, and shows content that already starts with that tag as it is: a body
could speak with another member's name. teamdeck writes every body through
:func:`~teamdeck.formats.blocks.inert_body`, so what Ripperdoc shows is one block, naming
the true sender.
"""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from teamdeck.clock import iso, parse_iso
from teamdeck.errors import InvalidFile, NotFound
from teamdeck.formats.blocks import inert_body
from teamdeck.formats.inboxes import Delivery, Inbox, InboxEntry, UnreadableInbox, entry_name, parse_entries
from teamdeck.formats.layout import list_inbox_files
from teamdeck.formats.ripperdoc.files import (
    RIPPERDOC_LOG,
    ROSTER,
    inbox_file,
    inboxes_dir,
    object_at,
    read_json,
    team_locked,
    write_json,
)
from teamdeck.store.jsonl import append_line
from teamdeck.store.workspace import Workspace

MESSAGE_TYPES = {
    "shutdown_request": "shutdown_request",
    "shutdown_approved": "shutdown_response",
    "shutdown_rejected": "shutdown_response",
    "plan_approval_response": "plan_approval_response",
    "plan_approval_request": "plan_approval_request",
    "idle_notification": "idle_notification",
    "task_assignment": "task_assignment",
}
"""A protocol frame's ``type`` -> the ``message_type`` Ripperdoc files it under; any
other text is a ``message``."""


def new_request_id() -> str:
    """A request id as Ripperdoc's ``SendMessage`` makes one: ``req_`` and 10 hex digits."""
    return f"req_{uuid.uuid4().hex[:10]}"


def recipient_of(path: Path) -> str:
    """The recipient an inbox file belongs to: its name without ``.json``."""
    return path.name[: -len(".json")] if path.name.endswith(".json") else path.name


def list_inbox_paths(ws: Workspace, team: str) -> tuple[list[Path], list[str]]:
    """The team's inbox files (``inboxes/*.json``; Ripperdoc's temp files, ``.team_*.tmp``,
    are hidden), and one line per file whose name fails the member allow-list."""
    return list_inbox_files(ws, inboxes_dir(ws, team), lambda member: inbox_file(ws, team, member))


def _seconds_iso(value: Any) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return iso(datetime.fromtimestamp(value, UTC))
        except (OverflowError, OSError, ValueError):
            return value
    return value


def to_teamdeck(entry: dict[str, Any]) -> dict[str, Any]:
    """One Ripperdoc inbox entry in teamdeck's message shape (``content`` that is not a
    string is given as its JSON, as Ripperdoc shows it to the model)."""
    metadata = object_at(entry, "metadata")
    content = entry.get("content")
    mine: dict[str, Any] = {
        "from": entry.get("sender"),
        "text": content if isinstance(content, str) else json.dumps(content, ensure_ascii=False),
        "timestamp": _seconds_iso(entry.get("created_at")),
        "read": entry.get("read") is True,
    }
    summary = metadata.get("summary")
    if isinstance(summary, str) and summary.strip():
        mine["summary"] = summary
    if isinstance(entry.get("id"), str):
        mine["id"] = entry["id"]
    return mine


def _read_array(path: Path) -> list[Any]:
    """The raw array; a missing file is ``[]``.

    Raises:
        UnreadableInbox: the file is not a JSON array.
    """
    try:
        array: list[Any] = read_json(path, list, path.name)
    except FileNotFoundError:
        return []
    except InvalidFile as err:
        raise UnreadableInbox(path, f"{err.where + ': ' if err.where else ''}{err.why}") from None
    return array


def read_inbox(path: Path, earlier: Inbox | None = None) -> Inbox:
    """One inbox as read (entries equal to ``earlier``'s at their place taken over).

    Raises:
        UnreadableInbox: the file is not a JSON array.
    """
    array = _read_array(path)
    known = earlier.entries if earlier is not None else ()
    translated: list[Any] = []
    missing: dict[int, str] = {}
    for index, raw in enumerate(array):
        if not isinstance(raw, dict):
            translated.append(raw)
        elif raw.get("content") is None:
            missing[index] = (
                f"{entry_name(index)}: content: missing (Ripperdoc marks such an entry read and never shows it)"
            )
            translated.append(raw)
        else:
            translated.append(to_teamdeck(raw))
    entries = parse_entries(translated, known)
    for index, problem in missing.items():
        entries[index] = InboxEntry(index, translated[index], None, problem)
    return Inbox(path, recipient_of(path), entries)


def message_type_of(text: str) -> str:
    """The ``message_type`` Ripperdoc files a message with this text under."""
    if text.lstrip().startswith("{"):
        try:
            frame = json.loads(text)
        except ValueError:
            return "message"
        if isinstance(frame, dict) and isinstance(frame.get("type"), str):
            return MESSAGE_TYPES.get(frame["type"], "message")
    return "message"


def _frame_metadata(text: str, summary: Any) -> dict[str, Any]:
    """What Ripperdoc's senders put in a message's ``metadata``: the summary, and a
    protocol frame's request id and answer under both spellings it reads."""
    metadata: dict[str, Any] = {}
    if isinstance(summary, str) and summary:
        metadata["summary"] = summary
    try:
        frame = json.loads(text) if text.lstrip().startswith("{") else None
    except ValueError:
        frame = None
    if isinstance(frame, dict):
        request_id = frame.get("requestId") or frame.get("request_id")
        if isinstance(request_id, str):
            metadata |= {"request_id": request_id, "requestId": request_id}
        if frame.get("type") in ("shutdown_approved", "shutdown_rejected"):
            approve = frame["type"] == "shutdown_approved"
            metadata |= {"approve": approve, "approved": approve, "protocol_type": frame["type"]}
        elif isinstance(frame.get("approved"), bool):
            metadata |= {"approve": frame["approved"], "approved": frame["approved"]}
    return metadata


def _queue_payload(record: dict[str, Any], recipient: str) -> dict[str, Any]:
    """An inbox entry's ``metadata`` as Ripperdoc's ``_build_queue_notification_payload``
    makes it: the envelope, the request id and answer, then the message's own metadata."""
    metadata = record["metadata"]
    payload: dict[str, Any] = {
        "team": {
            "team_name": record["teamName"],
            "sender": record["sender"],
            "recipient": recipient,
            "message_type": record["messageType"],
            "message_id": record["id"],
            "created_at": record["createdAt"],
        },
        "team_message_type": record["messageType"],
        "team_name": record["teamName"],
        "sender": record["sender"],
        "recipient": recipient,
        "request_id": metadata.get("request_id"),
        "requestId": metadata.get("requestId"),
        "approve": metadata.get("approve"),
        "approved": metadata.get("approved"),
    }
    payload.update(metadata)
    return payload


def append_message(path: Path, message: dict[str, Any]) -> Delivery:
    """Send ``message`` (teamdeck's shape) to the inbox at ``path`` as Ripperdoc's
    ``send_team_message`` does, under the team's flock, and confirm it landed.

    Raises:
        NotFound: the team has no config.json any more.
        UnreadableInbox, Busy, WriteFailed: nothing was sent.
    """
    directory = path.parent.parent
    team = directory.name
    recipient = recipient_of(path)
    text = message["text"]
    sender = message.get("from") or "system"
    content = inert_body(text)
    try:
        created = parse_iso(message["timestamp"]).timestamp()
    except (KeyError, TypeError, ValueError):
        created = datetime.now(UTC).timestamp()
    record = {
        "id": f"msg_{uuid.uuid4().hex[:10]}",
        "teamName": team,
        "sender": sender,
        "recipients": [recipient],
        "messageType": message_type_of(text),
        "content": content,
        "metadata": _frame_metadata(text, message.get("summary")),
        "createdAt": created,
    }
    with team_locked(directory):
        try:
            config = read_json(directory / ROSTER, dict, f"teams/{team}/{ROSTER}")
        except FileNotFoundError:
            raise NotFound(f"team '{team}' not found: no teams/{team}/{ROSTER}") from None
        array = _read_array(path)
        append_line(directory / RIPPERDOC_LOG, json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n")
        version = config.get("version")
        config["version"] = version + 1 if isinstance(version, int) and not isinstance(version, bool) else 2
        config["updatedAt"] = created
        write_json(directory / ROSTER, config, crash_prefix="config")
        entry = {
            "id": record["id"],
            "team_name": team,
            "recipient": recipient,
            "sender": record["sender"],
            "message_type": record["messageType"],
            "content": content,
            "created_at": created,
            "metadata": _queue_payload(record, recipient),
            "read": False,
        }
        path.parent.mkdir(exist_ok=True)
        write_json(path, [*array, entry], crash_prefix="inbox")
    confirmed = any(isinstance(e, dict) and e.get("id") == record["id"] for e in _read_array(path))
    return Delivery(path, confirmed, 1)


def mark_read(path: Path, wanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """Mark the unread messages ``wanted`` selects (offered in teamdeck's shape) read,
    under the team's flock.

    Returns:
        The messages marked, as they were before, in teamdeck's shape and file order.
    """
    return _mark(path, wanted, True)


def mark_unread(path: Path, wanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """Mark the read messages ``wanted`` selects unread again; as :func:`mark_read` otherwise."""
    return _mark(path, wanted, False)


def _mark(path: Path, wanted: Callable[[dict[str, Any]], bool], read: bool) -> list[dict[str, Any]]:
    """Set ``read`` on the messages not so yet that ``wanted`` selects, in one locked
    write (none when nothing changes); as they were before, in teamdeck's shape."""
    if not path.exists():
        return []
    with team_locked(path.parent.parent):
        array = _read_array(path)
        taken = []
        for entry in array:
            if not isinstance(entry, dict) or (entry.get("read") is True) == read or entry.get("content") is None:
                continue
            mine = to_teamdeck(entry)
            if wanted(mine):
                taken.append(copy.deepcopy(mine))
                entry["read"] = read
        if taken:
            write_json(path, array, crash_prefix="inbox")
    return taken


def take_unread(path: Path) -> list[dict[str, Any]]:
    """Every unread message, marked read in the same locked write (delivering them)."""
    return mark_read(path, lambda _entry: True)
