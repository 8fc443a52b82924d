"""Sends that happen once: keyed sends and finishing an interrupted send (F17, F18).

A send is logged in ``messages.jsonl`` before any inbox is written (R4), so a crash
between the two leaves a logged send some recipients never got. Two things build on
that record:

- **Finishing a send** (:func:`redeliver`): each recipient whose inbox lacks the entry
  (same ``from``, ``text``, ``timestamp``, see formats/inboxes.py ``same_message``), and
  whose observed record (protocol/team/observed.py) does not hold it as drained, gets it
  appended; the others are left alone. A message Claude Code drained before any reader
  of teamdeck saw it cannot be told from one never delivered: it is delivered again. The ``send`` intent (protocol/common/intents.py) runs it
  after a crash.
- **Keys**: a send made on behalf of something that may be retried - a webhook delivery
  redelivered by Gitea (``forge:<delivery>:<member>``), a gate decision finished after a
  crash (``gate:<task>:<gate>:<state>:<member>``) - carries a ``key``; a second send
  with the same key sends nothing new and only finishes the first (:func:`logged_with_key`).
"""

from __future__ import annotations

from typing import Any

from teamdeck.formats.inboxes import same_message
from teamdeck.formats.registry import log_file, team_format
from teamdeck.model.team import TeamConfig
from teamdeck.model.team_log import TeamLogRecord
from teamdeck.protocol.team.observed import Observed, record_delivered
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.jsonl import find_record
from teamdeck.store.workspace import Workspace


def inbox_entry(
    config: TeamConfig, sender: str, text: str, timestamp: str, summary: str | None = None
) -> dict[str, Any]:
    """An inbox entry as Claude Code writes it (key order included)."""
    entry: dict[str, Any] = {"from": sender, "text": text}
    if summary is not None:
        entry["summary"] = summary
    entry["timestamp"] = timestamp
    member = config.member(sender)
    if member is not None and member.color:
        entry["color"] = member.color
    entry["read"] = False
    return entry


def logged_with_key(ws: Workspace, team: str, key: str) -> TeamLogRecord | None:
    """The send logged with ``key`` in the team's messages.jsonl, if any (read from the end)."""
    return _logged(ws, team, "key", key)


def _logged(ws: Workspace, team: str, field: str, value: str) -> TeamLogRecord | None:
    found = find_record(log_file(ws, team), field, value)
    return TeamLogRecord.model_validate(found) if found is not None else None


def redeliver(ws: Workspace, team: str, record: TeamLogRecord) -> list[str]:
    """Append the logged send ``record`` to each recipient's inbox that lacks it.

    Returns:
        The recipients it was appended for now (empty: everyone had it).

    Raises:
        NotFound, InvalidFile (the roster), UnreadableInbox, Busy, WriteFailed.
    """
    if record.from_ is None or record.text is None or record.timestamp is None or not record.to:
        return []
    entry = inbox_entry(read_team(ws, team), record.from_, record.text, record.timestamp, record.summary)
    observed = Observed(ws, team)
    files = team_format(ws, team)
    appended = []
    for recipient in record.to:
        path = files.inbox(ws, team, recipient)
        # What the inbox holds, and what was seen in it before Claude Code drained it.
        if any(same_message(present.raw, entry) for present in observed.read(path).entries):
            continue
        if files.append_message(path, entry).confirmed:
            record_delivered(ws, team, recipient, entry)
        appended.append(recipient)
    return appended


def finish_send(ws: Workspace, args: dict[str, Any]) -> list[str]:
    """The ``send`` intent's completer: a send logged before the crash reaches every
    recipient; one not logged was never acknowledged and is dropped."""
    team, record_id = str(args.get("team", "")), str(args.get("record", ""))
    record = _logged(ws, team, "id", record_id)
    if record is None:
        return []
    appended = redeliver(ws, team, record)
    return [f"message {record_id} delivered to {', '.join(appended)} (team {team})"] if appended else []
