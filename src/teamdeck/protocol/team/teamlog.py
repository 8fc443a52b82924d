"""Writing and reading ``teams/<team>/messages.jsonl`` (see model/team_log.py)."""

from __future__ import annotations

import logging
from typing import Any

from teamdeck.clock import iso
from teamdeck.formats.registry import log_file
from teamdeck.ids import new_ulid
from teamdeck.model.shape import validation_error
from teamdeck.model.team_log import LogType, TeamLogRecord
from teamdeck.store.jsonl import Tail, append_record, repair_torn_tail
from teamdeck.store.locks import locked
from teamdeck.store.workspace import Workspace

logger = logging.getLogger(__name__)


def new_record(ws: Workspace, type_: LogType, **fields: Any) -> TeamLogRecord:
    """A record stamped with a fresh ULID, the workspace clock and actor.

    Args:
        ws: the workspace (clock, actor).
        type_: the record type.
        fields: the other fields (``from_`` for the sender); None values are left out.
    """
    moment = ws.clock()
    values = {key: value for key, value in fields.items() if value is not None}
    return TeamLogRecord(id=new_ulid(moment), ts=iso(moment), type=type_, actor=ws.actor, **values)


def log(ws: Workspace, team: str, record: TeamLogRecord) -> TeamLogRecord:
    """Append ``record`` to the team's messages.jsonl as one durable line.

    Under the log's writer lock a torn last line left by a killed writer is first moved
    aside (F2), so the new record never gets glued onto a fragment.

    Raises:
        WriteFailed: the disk refused, or the torn line could not be saved; nothing was written.
        Busy: another writer held the log's lock past the timeout.
    """
    path = log_file(ws, team)
    with locked(path, what=str(ws.rel(path))):
        banner = repair_torn_tail(path, ws.clock().strftime("%Y%m%dT%H%M%SZ"))
        if banner:
            logger.warning("%s/%s", ws.rel(path.parent), banner)
        append_record(path, record.to_json())
    return record


class TeamLog:
    """A team's messages.jsonl read incrementally: each :meth:`read` parses and validates
    only the records appended since the last one (the live view keeps one per team, so a
    long-lived team's log is not re-read on every inbox change). A replaced or truncated
    file (a team deleted and made again) is read again from scratch.
    """

    def __init__(self, ws: Workspace, team: str) -> None:
        self._path = log_file(ws, team)
        self._rel = ws.rel(self._path)
        self.generation = -1
        """How many times the file was found replaced (what was read before no longer holds)."""
        self._start()

    def _start(self) -> None:
        self.generation += 1
        self._tail = Tail(self._path)
        self._records: list[TeamLogRecord] = []
        self._bad: list[str] = []
        self._count = 0

    def read(self) -> tuple[list[TeamLogRecord], list[str]]:
        """Every valid record in file order, and one line per bad one."""
        new = self._tail.read_new()
        if self._tail.reset:  # another file now: what was read of the old one no longer holds
            self._start()
            new = self._tail.read_new()
        for record in new:
            self._count += 1
            try:
                self._records.append(TeamLogRecord.model_validate(record))
            except validation_error() as err:
                first = err.errors()[0]
                where = ".".join(str(part) for part in first["loc"])
                self._bad.append(
                    f"{self._rel} record {self._count} ({record.get('id', 'no id')}): {where}: {first['msg']}"
                )
        return list(self._records), self._bad + [str(problem) for problem in self._tail.problems]


def read_log(ws: Workspace, team: str) -> tuple[list[TeamLogRecord], list[str]]:
    """Every valid record of the team's log in file order, and one line per bad one."""
    return TeamLog(ws, team).read()
