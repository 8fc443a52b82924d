"""The rows of the Events panel: one line of a log (a task's ``events.jsonl``, a team's
``messages.jsonl``) reduced to what a list shows, and how each kind of record becomes
one. The log reader keeps them (view/readers/log_source.py) and the refresh merges every
log's rows into the snapshot's events (view/refresh/log_merge.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from teamdeck.store.loaders import dumps_json

DETAIL_CHARS = 4000


@dataclass(frozen=True)
class EventRow:
    """One line of a log, reduced to what a list shows.

    Attributes:
        ts: when (ISO-8601 as written; ``""`` if the record has none).
        id: the record id (``""`` if none).
        source: which log, for people: ``task t1`` or ``team alpha``.
        kind: the event ``type`` or message ``type``.
        actor: who: the event ``actor`` or the message ``from`` (→ ``to``).
        text: a one-line summary of the payload (raw, not sanitised).
        detail: the whole record as compact JSON, capped (raw, not sanitised).
        path: the log, relative to the workspace.
    """

    ts: str
    id: str
    source: str
    kind: str
    actor: str
    text: str
    detail: str
    path: str

    @property
    def sort_key(self) -> tuple[str, str]:
        return (self.ts, self.id)


def _scalar_pairs(payload: dict[str, Any], skip: tuple[str, ...] = ()) -> str:
    parts = []
    for key, value in payload.items():
        if key in skip or value is None or value == "" or value == [] or value == {}:
            continue
        if isinstance(value, (dict, list)):
            value = dumps_json(value)
        parts.append(f"{key}={value}")
    return " ".join(parts)


def event_row(record: dict[str, Any], source: str, path: str) -> EventRow:
    """An :class:`EventRow` from one ``events.jsonl`` record (any shape is accepted)."""
    payload = record.get("payload")
    text = _scalar_pairs(payload) if isinstance(payload, dict) else ("" if payload is None else str(payload))
    return EventRow(
        ts=str(record.get("ts", "")),
        id=str(record.get("id", "")),
        source=source,
        kind=str(record.get("type", "?")),
        actor=str(record.get("actor", "")),
        text=text,
        detail=_detail(record),
        path=path,
    )


def message_row(record: dict[str, Any], source: str, path: str) -> EventRow:
    """An :class:`EventRow` from one ``messages.jsonl`` record (any shape is accepted)."""
    sender, recipients = record.get("from") or record.get("actor", ""), record.get("to") or []
    if isinstance(recipients, str):
        recipients = [recipients]
    actor = f"{sender} → {', '.join(str(name) for name in recipients)}" if recipients else str(sender)
    text = _scalar_pairs(record, skip=("id", "ts", "type", "from", "to", "timestamp", "actor"))
    return EventRow(
        ts=str(record.get("ts", record.get("timestamp", ""))),
        id=str(record.get("id", "")),
        source=source,
        kind=str(record.get("type", "message")),
        actor=actor,
        text=text,
        detail=_detail(record),
        path=path,
    )


def _detail(record: dict[str, Any]) -> str:
    try:
        text = dumps_json(record)
    except (TypeError, ValueError):
        text = repr(record)
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + f"… ({len(text):,} characters)"


def pretty_record(detail: str) -> str:
    """A row's record indented for reading, a protocol message in its ``text``
    decoded too; a record cut to :data:`DETAIL_CHARS` (not JSON any more) as it is."""
    try:
        record = json.loads(detail)
    except ValueError:
        return detail
    if isinstance(record, dict) and isinstance(record.get("text"), str) and record["text"].lstrip().startswith("{"):
        try:
            record["text"] = json.loads(record["text"])
        except ValueError:
            pass
    return json.dumps(record, indent=2, ensure_ascii=False)
