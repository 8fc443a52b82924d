"""Actions that span several files finish, even after a crash (F17).

A gate decision writes events.jsonl, task.yaml, human-notes.md and the worker's inbox;
a send writes messages.jsonl and each inbox. A crash between two of those writes used
to leave the rest undone for good (the gate approved, the worker never told). So such
an action first records its **intent** - ``.teamdeck/intents/<ulid>.json``, the action
and what it needs to finish, made durable before the first file is touched - and
removes it once every write is done. An intent still there was interrupted: the next
command (``teamdeck`` checks at start when it may write), ``teamdeck doctor --repair``
and the TUI at start run its action's **completer** (each listed in
protocol/effects/interrupted.py), which finishes what the action had acknowledged or
would have, and nothing twice: every completer is idempotent (messages are keyed, see
protocol/team/messaging/sending.py; files are compared before replacing).
An intent whose action never reached its decision (the gate is still blocked) is
simply dropped: nothing was acknowledged.

A crash is not the only way an action stops short: an acknowledged decision whose
worker message or human-notes entry failed (a full disk, F24) still owes them. The
action says so (:meth:`Running.owe`) and its intent is kept, unlocked, exactly as a
crash would leave it: the same completers finish it once the disk allows.

One file per intent (as maildir does) needs no lock between writers and no compaction.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from teamdeck.clock import iso
from teamdeck.errors import InvalidFile, TeamdeckError, WriteFailed
from teamdeck.protocol.common.written import INTENTS
from teamdeck.store import fs as fs_seam
from teamdeck.store.atomic import fsync_dir
from teamdeck.store.files import ensure_dir, read_optional
from teamdeck.store.loaders import dumps_json, parse_json
from teamdeck.store.workspace import Workspace

log = logging.getLogger(__name__)

Completer = Callable[[Workspace, dict[str, Any]], list[str]]
"""``finish(ws, args) -> what it did`` (lines for the person); ``args`` are the
intent's, plus ``intent``, its id (what the action yielded, to key its effects).
Raises TeamdeckError when it cannot finish now (the intent stays for the next try)."""


def intents_dir(ws: Workspace) -> Path:
    """``.teamdeck/intents/`` of the workspace."""
    return ws.root.joinpath(*INTENTS)


class Running:
    """An intent while its action runs (what :func:`intent` yields): its ``id`` (to key
    the action's effects) and what the action still owes (:meth:`owe`)."""

    __slots__ = ("id", "owed", "path")

    def __init__(self, intent_id: str, path: Path) -> None:
        self.id = intent_id
        self.path = path
        self.owed: list[str] = []

    def owe(self, *effects: str) -> None:
        """Keep the intent when the block ends: ``effects`` (one line each, for the
        person) of an acknowledged action failed, and its completer is to finish them
        later (the next command, ``doctor --repair``, the TUI at start) (F24)."""
        self.owed.extend(effects)


class Intent(NamedTuple):
    """One recorded intent: its file, action and arguments (a NamedTuple, not a
    dataclass: importing ``dataclasses`` would cost every ``send`` ~8 ms)."""

    path: Path
    action: str
    args: dict[str, Any]


@contextmanager
def intent(ws: Workspace, action: str, *, finish: Completer | None = None, **args: Any) -> Iterator[Running]:
    """Record the intent to do ``action`` before the block, remove it after.

    The intent file stays ``flock``-ed while the action runs, so no other process takes
    a live action for an interrupted one. A crash leaves it, and so does a block that
    ends owing effects (:meth:`Running.owe`): it is then unlocked and left for the
    completer, like a crashed one. When the block raises
    (the action failed and said so), ``finish`` says what becomes of it: None drops it
    (what failed was not acknowledged: a send the person was told did not arrive); a
    completer is run now (a decision recorded before a later write failed still gets its
    effects; one never recorded is dropped). Yields the :class:`Running` intent.

    Raises:
        WriteFailed: the intent could not be recorded; nothing else was written.
    """
    directory = intents_dir(ws)
    ensure_dir(directory)
    # Neither a ULID nor the workspace clock: the ids and times of events and messages
    # stay a function of the actions alone (demo-workspace/ and the snapshots are made
    # with a seeded ULID sequence and a scripted clock).
    now = datetime.now(UTC)
    intent_id = f"{now.strftime('%Y%m%dT%H%M%S%fZ')}-{os.urandom(6).hex()}"
    path = directory / f"{intent_id}.json"
    record = {"id": intent_id, "action": action, "args": args, "ts": iso(now), "actor": ws.actor}
    fd = _create_locked(path, dumps_json(record).encode("utf-8"))
    running = Running(intent_id, path)
    try:
        yield running
    except BaseException:
        os.close(fd)
        if finish is None:
            _remove(path)
        else:
            for line in complete(ws, Intent(path, action, args), finish):
                log.warning("%s", line)
        raise
    if running.owed:
        os.close(fd)  # kept for its completer, unlocked: nothing runs it any more
        log.debug("%s is kept for its completer: %s", path.name, "; ".join(running.owed))
        return
    fs_seam.current().crash_point("intent.before_done")
    _remove(path)
    os.close(fd)


def _create_locked(path: Path, data: bytes) -> int:
    """Write ``data`` durably at ``path`` (new) and return a descriptor holding an
    exclusive flock on it, taken before the file appears under its name.

    Raises:
        WriteFailed: the disk refused; nothing was left.
    """
    fs = fs_seam.current()
    temp = path.with_name(f".{path.name}.tmp")
    try:
        fd = fs.open(temp, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    except OSError as err:
        raise WriteFailed(
            f"could not record the intent in {path.parent}: {err.strerror or err}; nothing was written"
        ) from err
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        fs.write_all(fd, data)
        fs.fsync(fd)
        fs.replace(temp, path)
        fsync_dir(path.parent)
    except (OSError, WriteFailed) as err:
        os.close(fd)
        _remove(temp)
        raise WriteFailed(f"could not record the intent in {path.parent}: {err}; nothing was written") from err
    fs.crash_point("intent.recorded")
    return fd


def _remove(path: Path) -> None:
    try:
        fs_seam.current().unlink(path)
    except FileNotFoundError:
        pass


def pending(ws: Workspace) -> tuple[list[Intent], list[str]]:
    """The intents left by interrupted actions, oldest first, and the unreadable ones."""
    directory = intents_dir(ws)
    try:
        names = sorted(name for name in os.listdir(directory) if name.endswith(".json") and not name.startswith("."))
    except FileNotFoundError:
        return [], []
    found, problems = [], []
    for name in names:
        path = directory / name
        try:
            data = read_optional(path)
            if data is None:
                continue
            raw = parse_json(data, ws.rel(path))
            if (
                not isinstance(raw, dict)
                or not isinstance(raw.get("action"), str)
                or not isinstance(raw.get("args"), dict)
            ):
                raise InvalidFile(ws.rel(path), "", "not an intent (needs action and args)")
        except InvalidFile as err:
            problems.append(str(err))
            continue
        found.append(Intent(path, raw["action"], raw["args"]))
    return found, problems


def complete(ws: Workspace, item: Intent, finish: Completer | None) -> list[str]:
    """Finish one intent with its action's completer (None: the action is unknown, the
    intent stays), unless its action is still running in another process; returns what
    was done or could not be, one line each."""
    if finish is None:
        return [f"{ws.rel(item.path)}: unknown interrupted action '{item.action}'; left in place"]
    try:
        fd = os.open(item.path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return []  # finished meanwhile
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return []  # a live action, or another process finishing it
        if not item.path.exists():
            return []
        try:
            done = finish(ws, {**item.args, "intent": item.path.stem})
        except TeamdeckError as err:
            return [f"could not finish an interrupted {item.action} yet: {err}"]
        _remove(item.path)
    finally:
        os.close(fd)
    if done:
        log.warning("finished an interrupted %s (%s): %s", item.action, item.path.name, "; ".join(done))
    return [f"finished an interrupted {item.action}: {line}" for line in done]
