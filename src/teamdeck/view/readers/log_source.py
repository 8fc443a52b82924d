"""One log (a task's ``events.jsonl`` or a team's ``messages.jsonl``) read tail-first,
as the rows the Events panel lists (view/snapshot/events.py): a full parse of 100k lines
costs ~0.5 s and three times the memory.

A log can hold a million lines; parsing them all at start costs seconds and a gigabyte
of dicts. So a :class:`LogSource` reads only the last lines at start (a block read
backwards from the end), remembers the byte offset where that tail begins, reads
older lines only when asked (:meth:`LogSource.load_older`, again backwards from that
offset), and reads what is appended with :class:`teamdeck.store.jsonl.Tail`. Each
record becomes a small immutable :class:`~teamdeck.view.snapshot.events.EventRow`; the
raw dicts are dropped.

A replaced or truncated log (new inode, or smaller than what was read, F14) is read
again from its tail; ids already seen are skipped (C9).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from teamdeck.errors import InvalidFile
from teamdeck.store.jsonl import Tail, decode_records
from teamdeck.store.paths import EscapesWorkspace, open_beneath
from teamdeck.view.snapshot.events import EventRow

BLOCK_BYTES = 64 * 1024
MAX_PROBLEMS = 20

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
