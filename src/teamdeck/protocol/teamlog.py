"""Writing and reading ``teams/<team>/messages.jsonl`` (see model/team_log.py)."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError
from ulid import ULID

from teamdeck.clock import iso
from teamdeck.model.team_log import TeamLogRecord
from teamdeck.store.jsonl import append_record, read_records, repair_torn_tail
from teamdeck.store.locks import locked
from teamdeck.store.workspace import Workspace

logger = logging.getLogger(__name__)


def new_record(ws: Workspace, type_: str, **fields: Any) -> TeamLogRecord:
    """A record stamped with a fresh ULID, the workspace clock and actor.

    Args:
        ws: the workspace (clock, actor).
        type_: the record type.
        fields: the other fields (``from_`` for the sender); None values are left out.
    """
    moment = ws.clock()
    values = {key: value for key, value in fields.items() if value is not None}
    return TeamLogRecord(id=str(ULID.from_datetime(moment)), ts=iso(moment), type=type_, actor=ws.actor, **values)


def log(ws: Workspace, team: str, record: TeamLogRecord) -> TeamLogRecord:
    """Append ``record`` to the team's messages.jsonl as one durable line.

    Under the log's writer lock a torn last line left by a killed writer is first moved
    aside (F2), so the new record never gets glued onto a fragment.

    Raises:
        WriteFailed: the disk refused, or the torn line could not be saved; nothing was written.
        Busy: another writer held the log's lock past the timeout.
    """
    path = ws.messages_log(team)
    with locked(path, what=str(ws.rel(path))):
        banner = repair_torn_tail(path, ws.clock().strftime("%Y%m%dT%H%M%SZ"))
        if banner:
            logger.warning("%s/%s", ws.rel(path.parent), banner)
        append_record(path, record.to_json())
    return record


def read_log(ws: Workspace, team: str) -> tuple[list[TeamLogRecord], list[str]]:
    """Every valid record of the team's log in file order, and one line per bad one."""
    records, problems = read_records(ws.messages_log(team))
    valid, bad = [], [str(problem) for problem in problems]
    for number, record in enumerate(records, start=1):
        try:
            valid.append(TeamLogRecord.model_validate(record))
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            bad.append(f"{ws.rel(ws.messages_log(team))} record {number} ({record.get('id', 'no id')}): {where}: {first['msg']}")
    return valid, bad
