"""The snapshot's events, merged from every log the refresher has open: each log's
reader (view/readers/log_source.py) is kept in the read state, opened the first time
with its last lines and then read only for what was appended, and the rows of all of
them are merged into one time-ordered tail of at most :data:`MAX_EVENTS` rows."""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from pathlib import Path

from teamdeck.clock import parse_iso
from teamdeck.view.readers.log_source import LogSource
from teamdeck.view.refresh.read_state import ReadState
from teamdeck.view.snapshot.events import EventRow, event_row, message_row

MAX_EVENTS = 10_000
"""The most rows the merged events tail keeps (the newest)."""


def open_log(state: ReadState, path: Path, source: str, tail_lines: int, *, event: bool) -> LogSource:
    """The reader of the log at ``path`` kept in ``state`` (made, reading its last
    ``tail_lines``, the first time)."""
    rel = str(state.ws.rel(path))
    log = state.logs.get(rel)
    if log is None:
        log = LogSource(path, rel, source, event_row if event else message_row, tail_lines)
        state.logs[rel] = log
    return log


def advance(log: LogSource, new_rows: list[EventRow]) -> bool:
    """Read what was appended to ``log`` into ``new_rows``; True when the log was
    replaced and the merged tail must be rebuilt."""
    generation = log.generation
    rows = log.read_new()
    if log.generation != generation:
        return True
    new_rows.extend(rows)
    return False


def take_notice(log: LogSource) -> str | None:
    notice, log.notice = log.notice, None
    return notice


def merge_all(state: ReadState, limit: int = MAX_EVENTS) -> tuple[EventRow, ...]:
    rows = sorted((row for log in state.logs.values() for row in log.rows), key=order_of)
    return tuple(rows[-max(limit, MAX_EVENTS) :])


def merge(current: tuple[EventRow, ...], new: list[EventRow]) -> tuple[EventRow, ...]:
    new.sort(key=order_of)
    if not current or order_of(new[0]) >= order_of(current[-1]):
        rows = current + tuple(new)
    else:
        rows = tuple(sorted((*current, *new), key=order_of))
    return rows[-MAX_EVENTS:] if len(rows) > MAX_EVENTS else rows


def order_of(row: EventRow) -> tuple[datetime, str]:
    return (moment(row.ts), row.id)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=16384)
def moment(text: str) -> datetime:
    """``text`` as a time for ordering (the epoch when it is none); cached: every refresh
    orders all the open gates and the events' tail by the same few thousand stamps."""
    try:
        return parse_iso(text)
    except (ValueError, TypeError):
        return EPOCH
