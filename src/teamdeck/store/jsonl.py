"""Append-only JSON Lines logs: one ``os.write`` per record (R3), tolerant readers (R6).

Writers build the whole line in memory and hand it to the kernel in one ``write`` on an
``O_APPEND`` descriptor, so concurrent writers never interleave (C4). A short write is
rolled back by truncating to the size before it (F6). Readers parse only up to the last
newline (F3), keep ``(inode, offset)`` and start again when the file is replaced or
shrinks (F14), and count each record id once (C9). A log with other hard links is
never appended to in place: it is copied, the record added, and the copy renamed over
it (S24), so an append never writes into a file outside the workspace.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from teamdeck.errors import InvalidFile, WriteFailed
from teamdeck.store import fs as fs_seam
from teamdeck.store.atomic import atomic_replace, fsync_dir
from teamdeck.store.files import read_optional
from teamdeck.store.json_text import dumps_json
from teamdeck.store.paths import EscapesWorkspace, beneath, open_beneath

MAX_RECORD_BYTES = 64 * 1024
PARTIAL_WARN_S = 5.0
"""A partial last line standing still longer than this is reported (F3)."""


def encode_record(record: dict[str, Any], path: Path) -> bytes:
    """One record as one newline-terminated UTF-8 line.

    Raises:
        WriteFailed: the record is larger than :data:`MAX_RECORD_BYTES` or holds NaN.
    """
    try:
        line = (dumps_json(record) + "\n").encode("utf-8", "surrogateescape")
    except (ValueError, TypeError) as err:
        raise WriteFailed(f"could not append to {path.name}: {err}; nothing was written") from None
    if len(line) > MAX_RECORD_BYTES:
        raise WriteFailed(
            f"could not append to {path.name}: record is {len(line):,} bytes, limit {MAX_RECORD_BYTES:,}; nothing was written"
        )
    return line


def append_line(path: Path, line: bytes, *, durable: bool = True) -> None:
    """Append one complete line with a single ``write`` (and fsync when ``durable``).

    Call under the file's writer lock: a short write is undone by truncating to the
    size before it, which is only safe when no one else appended meanwhile. A file that
    ends in a torn record (a writer was killed, F2) must first be repaired with
    :func:`repair_torn_tail` under that lock, or the new record joins the fragment;
    protocol.taskfile.transact does so. (Prefixing a newline here instead would leave
    blank lines whenever a concurrent append is seen half-way, C4.)

    A file with other hard links (``st_nlink > 1``: one may be outside the workspace,
    where ``O_NOFOLLOW`` does not look) is not written in place: see
    :func:`_append_unlinked` (S24).

    Raises:
        WriteFailed: the disk refused (ENOSPC, EIO...) or wrote only part of the line,
            in which case the partial bytes are truncated away; the message says so.
    """
    fs = fs_seam.current()
    try:
        fd = fs.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as err:
        raise WriteFailed(f"could not append to {path.name}: {err.strerror}; nothing was written") from err
    try:
        info = os.fstat(fd)
        if info.st_nlink > 1:
            _append_unlinked(path, line)
            return
        before = info.st_size
        try:
            written = fs.write(fd, line)
        except OSError as err:
            raise WriteFailed(f"{err.strerror or err} writing {path.name}; nothing was written") from err
        if written != len(line):
            try:
                fs.ftruncate(fd, before)
            except OSError as err:
                raise WriteFailed(
                    f"short write to {path.name} ({written} of {len(line)} bytes) and the partial line could not be removed ({err.strerror or err}); it stays at the end of the file until the next repair"
                ) from err
            raise WriteFailed(
                f"short write to {path.name} ({written} of {len(line)} bytes); the partial line was removed, nothing was written"
            )
        if durable:
            try:
                fs.fsync(fd)
            except OSError as err:
                raise WriteFailed(
                    f"{err.strerror or err} making {path.name} durable; the record may not survive a crash"
                ) from err
    finally:
        fs.close(fd)


def _append_unlinked(path: Path, line: bytes) -> None:
    """Append ``line`` to a file that has other hard links by replacing it (S24).

    Writing in place would write into every other name of the file too, one of which
    may be outside the workspace (a hard link, unlike a symbolic one, cannot be seen on
    the way). Refusing would lose the record and every later one until a person
    removed the link; instead the file's records and the new line are written to a temp
    file beside it and renamed over it, as inbox rewrites and YAML replaces do: the
    workspace's log keeps every record and the new one, the other names keep the bytes
    they had, and later appends go in place again. Safe under the writer lock the
    caller holds: no other writer appends meanwhile; readers see a replaced file and
    read it again, each record once (F14). Costs one copy of the log, once.

    Raises:
        WriteFailed: the file could not be read or replaced; it is unchanged.
    """
    try:
        current = read_optional(path, limit=None) or b""
    except InvalidFile as err:
        raise WriteFailed(f"could not append to {path.name}: {err}; nothing was written") from err
    atomic_replace(path, current + line, crash_prefix="append")


def append_record(path: Path, record: dict[str, Any], *, durable: bool = True) -> None:
    """Encode ``record`` and append it as one line (see :func:`append_line`)."""
    append_line(path, encode_record(record, path), durable=durable)


def decode_line(raw: bytes, path: Path | str, line_no: int) -> dict[str, Any]:
    """Decode one log line into a dict.

    The record cap holds on reading as on writing: a line longer than
    :data:`MAX_RECORD_BYTES` is not parsed (a 50 MB line would cost seconds to decode).

    Raises:
        InvalidFile: over the cap, or not a JSON object (naming the line).
    """
    if len(raw) + 1 > MAX_RECORD_BYTES:
        raise InvalidFile(path, f"line {line_no}", _oversize(len(raw) + 1))
    try:
        value = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as err:
        raise InvalidFile(path, f"line {line_no}", f"not a JSON record ({err})") from None
    if not isinstance(value, dict):
        raise InvalidFile(path, f"line {line_no}", f"expected a JSON object, got {type(value).__name__}")
    return value


def decode_records(
    lines: list[bytes], path: Path, *, seen: set[str], problems: list[InvalidFile] | None = None, first_line: int = 1
) -> list[dict[str, Any]]:
    """Decode complete log lines: blank lines skipped, each id kept once (``seen`` is
    updated), bad lines appended to ``problems`` (dropped when it is None).

    Args:
        lines: complete lines without their newlines.
        path: the log, for messages.
        seen: ids already taken; updated in place.
        problems: where bad lines go.
        first_line: the line number of ``lines[0]``, for messages.
    """
    records = []
    for number, raw in enumerate(lines, start=first_line):
        if not raw.strip():
            continue
        try:
            record = decode_line(raw, path, number)
        except InvalidFile as problem:
            if problems is not None:
                problems.append(problem)
            continue
        record_id = record.get("id")
        if isinstance(record_id, str):
            if record_id in seen:
                continue
            seen.add(record_id)
        records.append(record)
    return records


class Tail:
    """Incremental reader of one JSONL file (R6).

    Call :meth:`read_new` whenever the file may have changed; it returns only the
    complete records added since the last call. ``reset`` is True on the call after the
    file was replaced or truncated (F14): the file is read again from the start, and
    records whose ids were already returned are skipped, so callers keep what they hold
    and append what comes back, never showing a record twice.

    A slotted class, not a dataclass: a ``send`` reads its team's log through one, and
    importing ``dataclasses`` would cost it ~8 ms.

    Attributes:
        path: the file.
        offset, inode: how far it was read, and which file that was.
        line_no: how many complete lines were read.
        pending: the bytes of a line not complete yet.
        seen: the ids of the records returned.
        reset: the file was replaced or truncated before the last read.
        problems: the bad lines (and a refused path) met so far.
        grown_at: ``time.monotonic()`` when new bytes last arrived (for :meth:`stalled_partial`).
    """

    __slots__ = ("path", "offset", "inode", "line_no", "pending", "seen", "reset", "problems", "grown_at")

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.inode: int | None = None
        self.line_no = 0
        self.pending = b""
        self.seen: set[str] = set()
        self.reset = False
        self.problems: list[InvalidFile] = []
        self.grown_at: float | None = None

    def read_new(self) -> list[dict[str, Any]]:
        """The complete, new, not-yet-seen records; bad lines go to :attr:`problems`."""
        self.reset = False
        try:
            fd = open_beneath(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return []
        except EscapesWorkspace as err:
            refused = InvalidFile(self.path, "", str(err.strerror))
            if all(str(problem) != str(refused) for problem in self.problems):
                self.problems.append(refused)
            return []
        try:
            info = os.fstat(fd)
            if self.inode is not None and (info.st_ino != self.inode or info.st_size < self.offset):
                self.offset, self.line_no, self.pending, self.reset = 0, 0, b"", True
            self.inode = info.st_ino
            if info.st_size == self.offset:
                return []
            chunk = os.pread(fd, info.st_size - self.offset, self.offset)
        finally:
            os.close(fd)
        self.offset += len(chunk)
        self.grown_at = time.monotonic()
        data = self.pending + chunk
        end = data.rfind(b"\n")
        if end < 0:
            self.pending = data
            return []
        self.pending = data[end + 1 :]
        lines = data[: end + 1].splitlines()
        records = decode_records(lines, self.path, seen=self.seen, problems=self.problems, first_line=self.line_no + 1)
        self.line_no += len(lines)
        return records

    def stalled_partial(self, *, now: float | None = None, after: float = PARTIAL_WARN_S) -> str | None:
        """A warning when the file ends in a partial line that has not grown for more
        than ``after`` seconds (F3): its writer probably died mid-record. A partial line
        that is still growing is normal and not reported.

        Args:
            now: the current ``time.monotonic()`` (tests pass one).
            after: how long a partial line may stand still.
        """
        if not self.pending or self.grown_at is None:
            return None
        idle = (time.monotonic() if now is None else now) - self.grown_at
        if idle <= after:
            return None
        return f"{self.path.name}: incomplete last line at byte {self.offset - len(self.pending):,} has not grown for {idle:.0f} s"


def read_records(path: Path) -> tuple[list[dict[str, Any]], list[InvalidFile]]:
    """Every complete record of ``path`` once (deduplicated by id), and the bad lines."""
    tail = Tail(path)
    records = tail.read_new()
    return records, tail.problems


def records_after(
    path: Path, record_id: str, *, block: int = 64 * 1024, problems: list[InvalidFile] | None = None
) -> list[dict[str, Any]] | None:
    """The complete records after the one whose ``id`` is ``record_id``, read backwards.

    Applying a log to a document only needs what came after the last applied record,
    which is nearly always the last line: reading from the end keeps a key action on a
    task with a million events as cheap as on a new one. The file is scanned backwards
    one block at a time and each line is looked at once, so an unknown id costs one
    pass over the file and a 50 MB line costs reading it, never parsing it (a line over
    the record cap is skipped and goes to ``problems``). Records are deduplicated by id
    and a torn last line is left out, as :class:`Tail` does.

    Returns:
        The records after it (oldest first), or None when no record has that id (the
        caller reads the whole log).

    Raises:
        InvalidFile: the log cannot be read (a link out of the workspace, EACCES...).
    """
    needle = record_id.encode()
    try:
        handle = os.fdopen(open_beneath(path, os.O_RDONLY), "rb")
    except FileNotFoundError:
        return None
    except OSError as err:
        raise InvalidFile(path, "", f"cannot read: {err.strerror or err}") from err
    with handle:
        size = os.fstat(handle.fileno()).st_size
        later: list[bytes | None] = []
        for _end, line in lines_backwards(handle, size, block):
            if line is not None and needle in line and _record_id(line) == record_id:
                records = []
                seen: set[str] = set()
                for raw in reversed(later):
                    if raw is None:
                        if problems is not None:
                            problems.append(InvalidFile(path, "", _oversize(MAX_RECORD_BYTES + 1)))
                        continue
                    records.extend(decode_records([raw], path, seen=seen, problems=problems))
                return records
            later.append(line)
    return None


def find_record(
    path: Path, field: str, value: str, *, within: str | None = None, block: int = 64 * 1024
) -> dict[str, Any] | None:
    """The last complete record of ``path`` whose ``field`` is ``value`` (the field of
    its ``within`` object, when given: an event's ``payload``), read from the end (a
    line is parsed only when it holds the value's JSON text), or None."""
    needle = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogateescape")
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return None
    with handle:
        for _end, line in lines_backwards(handle, os.fstat(handle.fileno()).st_size, block):
            if line is None or needle not in line:
                continue
            try:
                record = decode_line(line, path, 0)
            except InvalidFile:
                continue
            holder = record.get(within) if within is not None else record
            if isinstance(holder, dict) and holder.get(field) == value:
                return record
    return None


def last_record_id(path: Path, *, block: int = 4096) -> object:
    """The ``id`` of the last complete record of ``path`` (read from its end, a block
    at a time), or None: no file, no complete line, or the last one is not a record
    with an id. A torn tail is left out, as readers do (F3)."""
    try:
        handle = os.fdopen(open_beneath(path, os.O_RDONLY), "rb")
    except OSError:
        return None
    with handle:
        for _end, line in lines_backwards(handle, os.fstat(handle.fileno()).st_size, block):
            if line is None:
                return None
            if line.strip():
                return _record_id(line)
    return None


def _oversize(size: int) -> str:
    return f"record is {size:,} bytes, over the limit of {MAX_RECORD_BYTES:,}; skipped"


def lines_backwards(
    handle: Any,
    size: int,
    block: int = 64 * 1024,
    *,
    cap: int = MAX_RECORD_BYTES,
    unfinished: bool = False,
    floor: int = 0,
) -> Iterator[tuple[int, bytes | None]]:
    """Each complete line of an open file, last first, as ``(offset after its newline,
    its bytes)``; the bytes are None for a line over ``cap`` (the record cap), which is
    never held in memory. Bytes after the last newline (a torn or unfinished record) are
    left out, unless ``unfinished``: then they come first, as a line ending at ``size``
    (empty when the file ends with a newline). Nothing before ``floor`` is read (the
    line it cuts is left out). Each block is read once and no buffer grows past the cap:
    linear in the file.
    """
    position = size
    end: int | None = size if unfinished else None  # the offset after the newline ending the line being gathered
    gathered: list[bytes] = []  # its pieces, last first
    length = 0  # their total size; None-like when over the cap (see oversize)
    oversize = False
    while position > floor:
        start = max(floor, position - block)
        handle.seek(start)
        chunk = handle.read(position - start)
        position = start
        right = len(chunk)
        while (newline := chunk.rfind(b"\n", 0, right)) >= 0:
            if end is not None:
                piece = chunk[newline + 1 : right]
                too_long = oversize or length + len(piece) + 1 > cap
                yield end, None if too_long else piece + b"".join(reversed(gathered))
            end, gathered, length, oversize = start + newline + 1, [], 0, False
            right = newline
        if end is not None and not oversize:
            length += right
            oversize = length + 1 > cap
            gathered = [] if oversize else [*gathered, chunk[:right]]
    if end is not None and floor <= 0:
        yield end, None if oversize else b"".join(reversed(gathered))


def _record_id(raw: bytes) -> object:
    try:
        value = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return value.get("id") if isinstance(value, dict) else None


def repair_torn_tail(path: Path, stamp: str) -> str | None:
    """Move an incomplete last record aside and truncate to the last newline (F2).

    Call only under the writer lock. The torn bytes are copied to
    ``<name>.broken-<stamp>`` (made unique with ``-2``, ``-3``... if taken) and made
    durable first; if that copy fails the file is left untouched (F16).

    Returns:
        A banner for the person, or None when the file ends cleanly.

    Raises:
        WriteFailed: the copy or the truncation failed; the message says what was kept.
    """
    try:
        size = beneath(path).stat().st_size
    except FileNotFoundError:
        return None
    except OSError as err:
        raise WriteFailed(f"{path.name}: {err.strerror or err}; nothing was written") from err
    if size == 0:
        return None
    fs = fs_seam.current()
    with open(path, "rb") as source:
        source.seek(size - 1)
        if source.read(1) == b"\n":
            return None
        keep = _last_newline_end(source, size)
        broken, fd = _create_unique(path, stamp)
        try:
            try:
                source.seek(keep)
                while block := source.read(1024 * 1024):
                    fs.write_all(fd, block)
                fs.fsync(fd)
            finally:
                fs.close(fd)
            fsync_dir(path.parent)
        except (OSError, WriteFailed) as err:
            _remove_quietly(broken)
            why = err.strerror if isinstance(err, OSError) else str(err)
            raise WriteFailed(
                f"{path.name}: could not save the incomplete last record to {broken.name} ({why}); the file was left untouched"
            ) from err
    try:
        fd = fs.open(path, os.O_WRONLY)
        try:
            fs.ftruncate(fd, keep)
            fs.fsync(fd)
        finally:
            fs.close(fd)
    except OSError as err:
        raise WriteFailed(
            f"{path.name}: could not cut the incomplete last record ({err.strerror or err}); it is saved in {broken.name} and readers skip it"
        ) from err
    return (
        f"{path.name}: incomplete last record ({size - keep:,} bytes) moved to {broken.name}; all complete records kept"
    )


def _create_unique(path: Path, stamp: str) -> tuple[Path, int]:
    """Create ``<name>.broken-<stamp>[-N]`` exclusively; returns it and its descriptor.

    Raises:
        WriteFailed: the file could not be created (nothing was changed).
    """
    fs = fs_seam.current()
    for attempt in range(1, 1000):
        suffix = "" if attempt == 1 else f"-{attempt}"
        broken = path.with_name(f"{path.name}.broken-{stamp}{suffix}")
        try:
            return broken, fs.open(broken, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        except OSError as err:
            raise WriteFailed(
                f"{path.name}: could not save the incomplete last record to {broken.name} ({err.strerror or err}); the file was left untouched"
            ) from err
    raise WriteFailed(f"{path.name}: too many {path.name}.broken-{stamp}* files; the file was left untouched")


def _remove_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _last_newline_end(handle: BinaryIO, size: int) -> int:
    """The offset just after the last newline of an open file (0 if none)."""
    block = 64 * 1024
    position = size
    while position > 0:
        start = max(0, position - block)
        handle.seek(start)
        data = handle.read(position - start)
        index = data.rfind(b"\n")
        if index >= 0:
            return start + index + 1
        position = start
    return 0
