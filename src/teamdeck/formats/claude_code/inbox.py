"""Claude Code inboxes: ``teams/<team>/inboxes/<name>.json``, one JSON array per recipient.

Reading tolerates a file caught mid-write (Claude Code rewrites in place): it is
retried, then reported for that file alone as :class:`UnreadableInbox` (B14). Entries
that are not messages are kept and reported, never dropped.

Writing follows Claude Code's own writer so both exclude each other (R4): create the
file as ``[]`` if missing (exclusive create), take the ``<name>.json.lock`` directory
lock, re-read the array under it, change it, write a temp file and ``os.replace`` it
(2-space indent, as Claude Code writes), release, and - for an append - re-read to
confirm the message landed, appending again if another writer lost it (C10). Only the
entries we mean to change are touched; every other entry, and every field we do not
know, is written back as it was read (B13).

An element is handed over as it is: Claude Code's inbox entries are teamdeck's
message shape (formats/inboxes.py holds the records they are read into).
"""

from __future__ import annotations

import copy
import errno
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from teamdeck.errors import InvalidFile, WriteFailed
from teamdeck.formats.claude_code.json_files import (
    CLAUDE_MAX_BYTES,
    RETRY_DELAYS_S,
    append_pretty,
    encode_pretty,
    pretty_element,
    read_json_with_bytes,
)
from teamdeck.formats.inboxes import Delivery, Inbox, UnreadableInbox, parse_entries, same_message
from teamdeck.store import fs as fs_seam
from teamdeck.store.atomic import atomic_replace, tmp_prefix
from teamdeck.store.dirlock import LOCK_STALE_S, HeldLock, rewrite_locked
from teamdeck.store.loaders import parse_json, read_capped
from teamdeck.store.paths import beneath

T = TypeVar("T")

_UMASK = os.umask(0o022)
os.umask(_UMASK)  # read once at import, as store/atomic.py does

CONFIRM_ATTEMPTS = 3
"""Appends tried before a message that keeps vanishing is reported unconfirmed."""


def recipient_of(path: Path) -> str:
    """The recipient an inbox file belongs to: its name without ``.json``."""
    return path.name[: -len(".json")] if path.name.endswith(".json") else path.name


def load_inbox_array(path: Path, *, delays: tuple[float, ...] = RETRY_DELAYS_S) -> list[Any]:
    """The raw array of an inbox; a missing file is an empty inbox.

    Raises:
        UnreadableInbox: not a JSON array after every retry.
    """
    return _load_with_bytes(path, delays)[1]


def _load_with_bytes(path: Path, delays: tuple[float, ...] = RETRY_DELAYS_S) -> tuple[bytes, list[Any]]:
    """The inbox's bytes and array (retrying); a missing file is ``[]``."""
    try:
        return read_json_with_bytes(path, list, shown=path.name, delays=delays)
    except FileNotFoundError:
        return b"[]", []
    except InvalidFile as err:
        raise UnreadableInbox(path, f"{err.where + ': ' if err.where else ''}{err.why}") from None


def read_inbox(path: Path, earlier: Inbox | None = None) -> Inbox:
    """Read and parse one inbox (retrying a half-written file).

    Args:
        path: the inbox file.
        earlier: an earlier read of the same file (the live view keeps one): entries
            that did not change are taken over from it, so an inbox that grew costs
            the JSON parse plus what was appended (Claude Code rewrites the whole file
            for every message).

    Raises:
        UnreadableInbox: the file is not a JSON array after retries (only this inbox).
    """
    known = earlier.entries if earlier is not None else ()
    return Inbox(path, recipient_of(path), parse_entries(load_inbox_array(path), known))


def ensure_inbox(path: Path) -> None:
    """Create ``path`` as ``[]`` if it does not exist, atomically and exclusively
    (and its ``inboxes/`` directory if needed).

    The content is written to a temp file first and linked into place (``link`` fails
    if the name exists), so no reader ever sees an empty file and no existing inbox is
    ever replaced.

    Raises:
        WriteFailed: the disk refused.
    """
    fs = fs_seam.current()
    try:
        if beneath(path).exists():
            return
        path.parent.mkdir(exist_ok=True)  # inboxes/ of a team that never had a message
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=tmp_prefix(path), suffix=".tmp")
    except OSError as err:
        raise WriteFailed(f"could not create {path.name}: {err.strerror or err}; nothing was written") from err
    try:
        try:
            os.fchmod(fd, 0o644 & ~_UMASK)
            if fs.write(fd, b"[]") != 2:
                raise OSError(errno.EIO, "short write")
            fs.fsync(fd)
        finally:
            os.close(fd)
        _link_or_create(tmp, path)
    except FileExistsError:
        pass  # another writer created it first: theirs stands
    except OSError as err:
        raise WriteFailed(f"could not create {path.name}: {err.strerror or err}; nothing was written") from err
    finally:
        os.unlink(tmp)


def _link_or_create(tmp: str, path: Path) -> None:
    """Put the complete temp file ``tmp`` at ``path`` only if nothing is there.

    ``link`` is atomic and exclusive; where a filesystem has no hard links, fall back
    to an exclusive create and write (a reader may then briefly see an empty file,
    which it retries).

    Raises:
        FileExistsError: ``path`` exists.
    """
    try:
        os.link(tmp, path)
        return
    except FileExistsError:
        raise
    except OSError as err:
        if err.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
            raise
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        os.write(fd, b"[]")
        os.fsync(fd)
    finally:
        os.close(fd)


def transact_inbox(
    path: Path, change: Callable[[list[Any]], tuple[T, bool]], *, stale_after: float = LOCK_STALE_S, create: bool = True
) -> T:
    """Read-modify-write an inbox under Claude Code's lock.

    Args:
        path: the inbox file (its directory must exist).
        change: given the array as read under the lock (to mutate in place), returns
            ``(result, changed)``; the file is rewritten only when ``changed``.
        stale_after: the lock's stale time (see :func:`dir_locked`).
        create: create the file as ``[]`` first if it is missing.

    Returns:
        ``change``'s result.

    Raises:
        UnreadableInbox: the file is not a JSON array (it is not rewritten).
        Busy: the lock stayed held by a live writer.
        WriteFailed: the disk refused; the inbox is unchanged.
    """
    if create:
        ensure_inbox(path)

    def attempt(held: HeldLock) -> T:
        data, array = _load_with_bytes(path)
        fs_seam.current().crash_point("inbox.after_read")
        result, changed = change(array)
        if changed:
            atomic_replace(path, encode_pretty(array), crash_prefix="inbox", check=held.unchanged(path, data))
        return result

    return rewrite_locked(path, attempt, stale_after=stale_after, what=f"inbox {path.name}")


def append_message(
    path: Path, message: dict[str, Any], *, stale_after: float = LOCK_STALE_S, attempts: int = CONFIRM_ATTEMPTS
) -> Delivery:
    """Append one message the way Claude Code does, then confirm it by re-reading.

    Under the lock the existing bytes are kept as they are and the new element is
    spliced in before the closing ``]`` (see :func:`append_pretty`).

    Args:
        path: the recipient's inbox.
        message: the entry (``from``, ``text``, ``summary``?, ``timestamp``, ``color``?,
            ``read``); written as given.
        stale_after: the lock's stale time.
        attempts: appends to try while the message keeps going missing afterwards.

    Returns:
        The :class:`Delivery`; ``confirmed`` is False when the message was still not in
        the file after ``attempts`` appends (a writer that ignores the lock lost it).

    Raises:
        UnreadableInbox, Busy, WriteFailed: nothing was appended.
    """

    def append(held: HeldLock) -> None:
        data, empty = _checked_array(path)
        fs_seam.current().crash_point("inbox.after_read")
        new = append_pretty(data, empty, message)
        atomic_replace(path, new, crash_prefix="inbox", check=held.unchanged(path, data))
        _remember_valid(path, new)

    for attempt in range(1, attempts + 1):
        ensure_inbox(path)
        rewrite_locked(path, append, stale_after=stale_after, what=f"inbox {path.name}")
        if _confirmed(path, message):
            return Delivery(path, True, attempt)
    return Delivery(path, False, attempts)


def _confirmed(path: Path, message: dict[str, Any]) -> bool:
    """Whether ``message`` is in the inbox now: its bytes as :func:`append_pretty` wrote
    them found in the file (a search, no parse), else an equal entry in the parsed
    array (another writer rewrote the file in its own formatting, or the recipient
    marked the message read)."""
    try:
        if pretty_element(message) in read_capped(path, CLAUDE_MAX_BYTES):
            return True
    except OSError:
        pass
    return any(same_message(entry, message) for entry in load_inbox_array(path))


_VALID: dict[Path, bytes] = {}
"""Per inbox, the last bytes this process knows to be a complete JSON array (parsed, or
written by it): the next append under the lock parses only what others added after
them (C17's writers appended into a 2 MB inbox parsing all of it, twice, each time)."""
_VALID_KEPT = 8


def _remember_valid(path: Path, data: bytes) -> None:
    if path not in _VALID and len(_VALID) >= _VALID_KEPT:
        _VALID.pop(next(iter(_VALID)))
    _VALID[path] = data


def _checked_array(path: Path) -> tuple[bytes, bool]:
    """The inbox's bytes, checked to be a JSON array, and whether it is empty.

    When the file starts with an array this process last knew to be valid (less its
    closing ``]``) and goes on with ``, <elements> ]``, only those new elements are
    parsed (with every check :func:`parse_json` makes); anything else is parsed whole.

    Raises:
        UnreadableInbox: not a JSON array after every retry (nothing is written).
    """
    known = _VALID.get(path)
    if known is not None:
        try:
            data = read_capped(path, CLAUDE_MAX_BYTES)
        except OSError:
            data = b""
        body = known.rstrip()[:-1].rstrip()
        if data == known:
            return data, body == b"["
        if body != b"[" and data.startswith(body):
            rest = data[len(body) :].strip()
            if rest.startswith(b",") and rest.endswith(b"]"):
                try:
                    parse_json(b"[" + rest[1:], path, limit=CLAUDE_MAX_BYTES)
                except InvalidFile:
                    pass
                else:
                    _remember_valid(path, data)
                    return data, False
    data, array = _load_with_bytes(path)
    _remember_valid(path, data)
    return data, not array


def mark_read(
    path: Path, wanted: Callable[[dict[str, Any]], bool], *, stale_after: float = LOCK_STALE_S
) -> list[dict[str, Any]]:
    """Mark the unread messages that ``wanted`` selects as read, under the lock.

    Args:
        path: the inbox.
        wanted: a predicate over a raw entry (only unread object entries are offered).
        stale_after: the lock's stale time.

    Returns:
        Copies of the entries marked, as they were before (``read: false``), in file order.
        An inbox that does not exist is left alone (nothing to mark).
    """
    return _mark(path, wanted, True, stale_after)


def mark_unread(
    path: Path, wanted: Callable[[dict[str, Any]], bool], *, stale_after: float = LOCK_STALE_S
) -> list[dict[str, Any]]:
    """Mark the read messages that ``wanted`` selects as unread again, under the lock;
    as :func:`mark_read` otherwise."""
    return _mark(path, wanted, False, stale_after)


def _mark(path: Path, wanted: Callable[[dict[str, Any]], bool], read: bool, stale_after: float) -> list[dict[str, Any]]:
    """Set ``read`` on the object entries not so yet that ``wanted`` selects, in one
    locked write (none when nothing changes); copies of them as they were before."""
    if not path.exists():
        return []

    def change(array: list[Any]) -> tuple[list[dict[str, Any]], bool]:
        taken = []
        for entry in array:
            if isinstance(entry, dict) and (entry.get("read") is True) != read and wanted(entry):
                taken.append(copy.deepcopy(entry))
                entry["read"] = read
        return taken, bool(taken)

    return transact_inbox(path, change, stale_after=stale_after, create=False)


def take_unread(path: Path, *, stale_after: float = LOCK_STALE_S) -> list[dict[str, Any]]:
    """Every unread message of an inbox, marked read in the same locked write
    (what delivering them to the recipient does)."""
    return mark_read(path, lambda _entry: True, stale_after=stale_after)
