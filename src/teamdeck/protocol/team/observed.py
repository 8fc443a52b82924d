"""What teamdeck saw in a team's inboxes, kept after Claude Code drains them.

Claude Code (2.1.332, see tests/fixtures/claude-code/FORMAT.md) removes a message from
an inbox once it delivered it to the recipient's model: a lead's inbox goes back to
``[]`` within a second, and with it every idle notification, reply and request that
status, conversation and the handshake ledger are derived from. So the reader that
watches inboxes (the live view: ``teamdeck tui``) records every message the first time
it sees it, in teamdeck's own append-only log
``.teamdeck/observed/<team>.jsonl``, and reads an inbox as what it recorded merged with
what the file holds now: a message no longer in the file is *drained*, shown as read
(Claude Code drains only what it delivered). The log is outside ``teams/<team>/``
because Claude Code deletes that directory when its session ends.

A record: ``{"id": "<recipient>:<key>", "ts", "inbox": recipient, "entry": {...}}``
where ``key`` is the entry's ``msg_id`` (Claude Code 2.1.332 writes one) or a digest of
its ``from``, ``timestamp`` and ``text``; ``entry`` is the inbox element as first read.
One line per message; the lines of one read are appended with one ``write`` under the
log's lock, after a torn tail is moved aside (R3, F2); a message is recorded once
(readers also count each id once, so a race of two recorders is harmless). Not fsync'd:
the record is of what a reader happened to see (a message written and drained between
two reads is never in it), and a power loss that takes its last lines takes the same
second of the inboxes it copies (Claude Code does not fsync them either); a process
killed loses nothing (the lines are in the page cache). An fsync per inbox read was
the live view's cost of a burst: at 10x, a refresh of a batch of 1,000 writes waited
on one fsync per changed inbox (the final update of the burst 94 ms -> 2.6 s). Every reader merges what was recorded; commands that only read (``status``,
``doctor``...) and a read-only workspace record nothing.
Only what a reader saw can be kept: a message written and drained between two reads
was never seen (FORMAT.md says what that means for each derived state).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
from collections.abc import Container
from pathlib import Path
from typing import Any

from teamdeck.clock import iso, utc_now
from teamdeck.errors import TeamdeckError, WriteFailed
from teamdeck.formats.inboxes import Inbox, InboxEntry
from teamdeck.formats.registry import team_format
from teamdeck.model.shape import validation_error
from teamdeck.model.team import InboxMessage
from teamdeck.store.jsonl import Tail, append_line, encode_record, repair_torn_tail
from teamdeck.store.locks import locked
from teamdeck.store.workspace import Workspace

logger = logging.getLogger(__name__)

KEPT_TEXT = 16_000
"""How much of a message's text a record keeps when the whole message does not fit in
one log line (64 KiB, R3): its text is cut, ``cut`` says how long it was."""


def message_key(recipient: str, raw: dict[str, Any]) -> str:
    """The identity of an inbox message: ``<recipient>:<msg_id>``, or, for writers that
    give none (teamdeck, older Claude Code), a digest of ``from``, ``timestamp``, ``text``
    (identical ones in one read are told apart by :func:`_occurrence`)."""
    msg_id = raw.get("msg_id")
    if isinstance(msg_id, str) and msg_id:
        return f"{recipient}:{msg_id}"
    body = json.dumps([raw.get("from"), raw.get("timestamp"), raw.get("text")], ensure_ascii=False)
    return f"{recipient}:sha256-{hashlib.sha256(body.encode('utf-8', 'surrogateescape')).hexdigest()[:32]}"


class _Recorded:
    """One recipient's recorded messages in the order first seen, and the merged entry
    last made for each position (reused while nothing about it changed, so the ledger
    fold and the inbox rows see an inbox that only grew, :meth:`Inbox.extends`).

    A slotted class, not a dataclass: a ``send`` records what it delivered, and
    importing ``dataclasses`` would cost it ~8 ms.

    Attributes:
        keys: the message keys, in the order first seen.
        order: key → its place in ``keys``.
        entries: key → the entry as recorded.
        drained: key → the entry as a drained message (read), made once.
        merged: the merged entries last made, by position.
        settled: how many of the first ``keys`` were all drained at the last merge:
            their merged entries come first and stay as they are while no message among
            them is back in the file, so a merge starts after them (a read costs what
            is not drained yet).
    """

    __slots__ = ("keys", "order", "entries", "drained", "merged", "settled")

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.order: dict[str, int] = {}
        self.entries: dict[str, dict[str, Any]] = {}
        self.drained: dict[str, dict[str, Any]] = {}
        self.merged: list[InboxEntry] = []
        self.settled = 0


class Observed:
    """A team's record of observed inbox messages, read incrementally.

    The live view keeps one per team (so a refresh reads only the records appended
    since) and records; a command makes one for its read of the team and only merges
    (a command that reads never writes: ``record`` is False), except a send, which
    records what its confirming read saw (:func:`record_delivered`).
    """

    def __init__(self, ws: Workspace, team: str, *, record: bool = False) -> None:
        self.ws = ws
        self.team = team
        self.recording = record and not ws.read_only
        self.path = ws.observed_log(team)
        self._tail = Tail(self.path)
        self._by_inbox: dict[str, _Recorded] = {}
        self._files: dict[str, Inbox] = {}

    def recipients(self) -> list[str]:
        """Every recipient with a recorded message, in the order first recorded (an
        ended team's inboxes are read from these)."""
        self._catch_up()
        return list(self._by_inbox)

    def read(self, path: Path) -> Inbox:
        """Read the inbox at ``path``, record what is new in it, and return it merged
        with what was recorded (drained messages first, in the order they were seen).

        Raises:
            UnreadableInbox: the file is not a JSON array (nothing recorded).
        """
        files = team_format(self.ws, self.team)
        inbox = files.read_inbox(path, self._files.get(files.recipient_of(path)))
        self._files[inbox.recipient] = inbox
        return self.merge(inbox)

    def merge(self, inbox: Inbox) -> Inbox:
        """``inbox`` (as just read from its file) with every message recorded for its
        recipient; records the messages not recorded yet (unless read-only)."""
        self._catch_up()
        recorded = self._by_inbox.setdefault(inbox.recipient, _Recorded())
        present: dict[str, InboxEntry] = {}
        unkeyed: list[InboxEntry] = []
        new: list[tuple[str, dict[str, Any]]] = []
        for entry in inbox.entries:
            if entry.message is None or not isinstance(entry.raw, dict):
                unkeyed.append(entry)  # not a message: shown from the file, never recorded
                continue
            key = _occurrence(message_key(inbox.recipient, entry.raw), present)
            present[key] = entry
            if key not in recorded.entries:
                new.append((key, entry.raw))
        self._record(inbox.recipient, new)
        order = recorded.order
        first = min((order[key] for key in present), default=len(recorded.keys))
        start = recorded.settled if first >= recorded.settled else 0
        drained = [key for key in recorded.keys[start:] if key not in present]
        merged: list[InboxEntry] = recorded.merged[:start]
        taken = 0
        for key, in_file in present.items():  # file order, each drained message before the first one recorded after it
            while taken < len(drained) and order[drained[taken]] < order[key]:
                merged.append(self._drained(recorded, drained[taken], len(merged)))
                taken += 1
            merged.append(self._entry_at(recorded, len(merged), in_file.raw, drained=False, read=in_file.message))
        for key in drained[taken:]:
            merged.append(self._drained(recorded, key, len(merged)))
        recorded.settled = first
        merged += [_renumbered(entry, len(merged) + n) for n, entry in enumerate(unkeyed)]  # not messages
        return Inbox(inbox.path, inbox.recipient, merged)

    def _drained(self, recorded: _Recorded, key: str, position: int) -> InboxEntry:
        """A recorded message no longer in the file: as first seen, marked read (Claude
        Code drains only what it delivered)."""
        raw = recorded.drained.get(key)
        if raw is None:
            raw = recorded.drained[key] = {**recorded.entries[key], "read": True}
        return self._entry_at(recorded, position, raw, drained=True)

    def _entry_at(
        self,
        recorded: _Recorded,
        position: int,
        raw: dict[str, Any],
        *,
        drained: bool,
        read: InboxMessage | None = None,
    ) -> InboxEntry:
        """The merged entry at ``position``: the one made before when it is unchanged.
        ``read``: ``raw`` as the inbox's reader already validated it (a message in the
        file), so it is not validated twice (at 10x, 2,000 inboxes at start)."""
        if position < len(recorded.merged):
            earlier = recorded.merged[position]
            if earlier.drained == drained and (earlier.raw is raw or earlier.raw == raw):
                return earlier
        message: InboxMessage | None = read
        if message is None:
            try:
                message = InboxMessage.model_validate(raw)
            except validation_error():
                message = None
        made = InboxEntry(position, raw, message, None if message else "recorded entry is not a message", drained)
        del recorded.merged[position:]
        recorded.merged.append(made)
        return made

    def _line(self, record: dict[str, Any]) -> bytes:
        """One record as one log line; a message too big for a line is kept cut."""
        try:
            return encode_record(record, self.path)
        except WriteFailed:
            return encode_record(_cut(record), self.path)

    def record(self, recipient: str, entries: list[dict[str, Any]]) -> None:
        """Record ``entries`` (raw inbox messages) seen in ``recipient``'s inbox, each
        once."""
        self._catch_up()
        keys: dict[str, object] = {}
        for raw in entries:
            keys[_occurrence(message_key(recipient, raw), keys)] = raw
        self._record(recipient, [(key, raw) for key, raw in keys.items() if isinstance(raw, dict)])

    def _catch_up(self) -> None:
        """Take in the records appended since the last read (by any process)."""
        records = self._tail.read_new()
        if self._tail.reset:
            self._by_inbox.clear()
        for record in records:
            self._take(record)

    def _take(self, record: dict[str, Any]) -> None:
        recipient, key, entry = record.get("inbox"), record.get("id"), record.get("entry")
        if not isinstance(recipient, str) or not isinstance(key, str) or not isinstance(entry, dict):
            return
        recorded = self._by_inbox.setdefault(recipient, _Recorded())
        if key not in recorded.entries:
            recorded.order[key] = len(recorded.keys)
            recorded.keys.append(key)
            recorded.entries[key] = entry

    def _record(self, recipient: str, new: list[tuple[str, dict[str, Any]]]) -> None:
        """Append one record per new message (not in a read-only workspace); a record
        that cannot be written is kept in memory only, and said once in the log."""
        known = self._by_inbox.setdefault(recipient, _Recorded()).entries
        now = utc_now()  # when it was seen: the real time, not the workspace clock (fixed or ticking in tests)
        records = [
            {"id": key, "ts": iso(now), "inbox": recipient, "entry": raw}
            for key, raw in dict(new).items()
            if key not in known
        ]
        if self.recording and records:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                lines = b"".join(self._line(record) for record in records)
                with locked(self.path, what=str(self.ws.rel(self.path))):
                    repair_torn_tail(self.path, now.strftime("%Y%m%dT%H%M%SZ"))
                    append_line(self.path, lines, durable=False)
            except (TeamdeckError, OSError) as err:
                logger.warning("%s: could not record observed messages: %s", self.ws.rel(self.path), err)
            else:
                self._catch_up()  # ours (and any another recorder appended meanwhile)
        for record in records:
            self._take(record)  # kept in memory even when not written


def _occurrence(key: str, taken: Container[str]) -> str:
    """``key`` for the first message with it in one read; ``key#2``, ``key#3``... for
    the next ones (two identical messages without a ``msg_id`` are two messages)."""
    if key not in taken:
        return key
    return next(f"{key}#{n}" for n in itertools.count(2) if f"{key}#{n}" not in taken)


def _renumbered(entry: InboxEntry, index: int) -> InboxEntry:
    """``entry`` at another position of the merged inbox (the same object when it is
    already there)."""
    if entry.index == index:
        return entry
    return InboxEntry(index, entry.raw, entry.message, entry.problem, entry.drained)


def _cut(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with its entry's ``text`` cut to :data:`KEPT_TEXT` characters and
    ``cut`` set to the length it had (a message too big for one log line)."""
    entry = dict(record["entry"])
    text = entry.get("text")
    if isinstance(text, str):
        entry["text"] = text[:KEPT_TEXT]
    return {**record, "entry": entry, "cut": len(text) if isinstance(text, str) else None}


def record_delivered(ws: Workspace, team: str, recipient: str, entry: dict[str, Any]) -> None:
    """Record a message teamdeck appended and then saw in ``recipient``'s inbox (the
    writer's confirming read), so a drain that follows does not make it look lost."""
    Observed(ws, team, record=True).record(recipient, [entry])
