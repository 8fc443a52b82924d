"""The events tail: every task's ``events.jsonl`` and every team's ``messages.jsonl``,
read tail-first (a full parse of 100k lines costs ~0.5 s and three times the memory).

A log can hold a million lines; parsing them all at start costs seconds and a gigabyte
of dicts. So a :class:`LogSource` reads only the last lines at start (a block read
backwards from the end), remembers the byte offset where that tail begins, reads
older lines only when asked (:meth:`LogSource.load_older`, again backwards from that
offset), and reads what is appended with :class:`teamdeck.store.jsonl.Tail`. Each
record becomes a small immutable :class:`EventRow`; the raw dicts are dropped.

A replaced or truncated log (new inode, or smaller than what was read, F14) is read
again from its tail; ids already seen are skipped (C9).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamdeck.errors import InvalidFile
from teamdeck.store.jsonl import Tail, decode_records
from teamdeck.store.loaders import dumps_json
from teamdeck.store.paths import EscapesWorkspace, open_beneath

BLOCK_BYTES = 64 * 1024
DETAIL_CHARS = 4000
MAX_PROBLEMS = 20


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


RowMaker = Callable[[dict[str, Any], str, str], EventRow]


class LogSource:
    """One JSONL log, read tail-first and then incrementally.

    Not thread-safe: one refresher owns it (the TUI runs refreshes in one exclusive
    worker). Rows are kept in file order; :attr:`generation` changes when the file was
    replaced and everything was read again.

    Attributes:
        rows: the loaded rows, oldest first.
        start: byte offset of the first loaded line (0: everything is loaded).
        problems: bad lines seen (newest last, capped).
    """

    def __init__(self, path: Path, rel: str, source: str, make_row: RowMaker, tail_lines: int) -> None:
        self.path = path
        self.rel = rel
        self.source = source
        self.make_row = make_row
        self.tail_lines = tail_lines
        self.generation = 0
        self.rows: list[EventRow] = []
        self.start = 0
        self.problems: list[InvalidFile] = []
        self.notice: str | None = None
        self._tail = Tail(path)
        self._open_tail()

    @property
    def complete(self) -> bool:
        """Whether every line of the file is loaded."""
        return self.start == 0

    def _open_tail(self) -> None:
        """Read the last ``tail_lines`` complete lines and start tailing after them."""
        self.rows = []
        self._tail = Tail(self.path)
        try:
            fd = open_beneath(self.path, os.O_RDONLY)
        except FileNotFoundError:
            self.start = 0
            return
        except EscapesWorkspace as err:  # a link out of the workspace: named once, never read (S16)
            refused = InvalidFile(self.rel, "", str(err.strerror))
            if all(str(problem) != str(refused) for problem in self.problems):
                self._problem(refused)
            self.start = 0
            return
        try:
            info = os.fstat(fd)
            end = _complete_end(fd, info.st_size)
            lines, self.start = _lines_before(fd, end, self.tail_lines)
        finally:
            os.close(fd)
        self._tail.inode, self._tail.offset = info.st_ino, end
        self.rows = self._rows(lines, self._tail.seen)

    def _rows(self, lines: list[bytes], seen: set[str]) -> list[EventRow]:
        problems: list[InvalidFile] = []
        records = decode_records(lines, Path(self.rel), seen=seen, problems=problems)
        for problem in problems:
            self._problem(InvalidFile(self.rel, "", problem.why))
        return [self.make_row(record, self.source, self.rel) for record in records]

    def _problem(self, problem: InvalidFile) -> None:
        self.problems.append(problem)
        del self.problems[:-MAX_PROBLEMS]

    def read_new(self) -> list[EventRow]:
        """The rows appended since the last call (all rows again after a replacement:
        then :attr:`generation` has changed and :attr:`notice` says so)."""
        try:
            info = os.stat(self.path)
        except FileNotFoundError:
            if self.rows or self._tail.inode is not None:
                self.generation += 1
                self.rows, self.start, self._tail = [], 0, Tail(self.path)
            return []
        if self._tail.inode is not None and (info.st_ino != self._tail.inode or info.st_size < self._tail.offset):
            return self._reread(f"{self.rel} was truncated or replaced; read again from its end")
        if self._tail.inode is None and self.rows == [] and self.start == 0:
            self._open_tail()
            return list(self.rows)
        before = len(self._tail.problems)
        records = self._tail.read_new()
        for problem in self._tail.problems[before:]:
            self._problem(InvalidFile(self.rel, "", problem.why))
        del self._tail.problems[:]
        if self._tail.reset:
            return self._reread(f"{self.rel} was truncated or replaced; read again from its end")
        new = [self.make_row(record, self.source, self.rel) for record in records]
        self.rows.extend(new)
        return new

    def _reread(self, notice: str) -> list[EventRow]:
        self.generation += 1
        self.notice = notice
        self._open_tail()
        return list(self.rows)

    def load_older(self, count: int) -> list[EventRow]:
        """Load up to ``count`` more lines before the loaded ones.

        Returns:
            The rows added at the front (oldest first); empty when all is loaded.
        """
        if self.start == 0 or count <= 0:
            return []
        try:
            fd = open_beneath(self.path, os.O_RDONLY)
        except (FileNotFoundError, EscapesWorkspace):
            return []
        try:
            if os.fstat(fd).st_ino != self._tail.inode:
                return []
            lines, self.start = _lines_before(fd, self.start, count)
        finally:
            os.close(fd)
        older = self._rows(lines, self._tail.seen)
        self.rows[:0] = older
        return older


def _complete_end(fd: int, size: int) -> int:
    """The offset just after the last newline (a torn last line is not read, F3)."""
    position = size
    while position > 0:
        start = max(0, position - BLOCK_BYTES)
        data = os.pread(fd, position - start, start)
        index = data.rfind(b"\n")
        if index >= 0:
            return start + index + 1
        position = start
    return 0


def _lines_before(fd: int, end: int, count: int) -> tuple[list[bytes], int]:
    """Up to ``count`` complete lines ending at ``end`` (which follows a newline), read
    backwards in blocks, and the offset where the first of them starts."""
    chunks: list[bytes] = []
    newlines = 0
    position = end
    while position > 0 and newlines <= count:
        start = max(0, position - BLOCK_BYTES)
        data = os.pread(fd, position - start, start)
        chunks.append(data)
        newlines += data.count(b"\n")
        position = start
    data = b"".join(reversed(chunks))
    lines = data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n")
    if len(lines) > count:
        dropped = lines[: len(lines) - count]
        position += sum(len(line) + 1 for line in dropped)
        lines = lines[len(lines) - count :]
    return lines, position
