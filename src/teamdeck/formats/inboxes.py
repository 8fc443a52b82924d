"""An inbox as teamdeck reads it, whatever team format wrote it.

A team format (formats/format.py) reads one recipient's inbox file and hands each
element over in teamdeck's message shape - the JSON form of
:class:`~teamdeck.model.team.InboxMessage` (``from``, ``text``, ``summary``,
``timestamp``, ``color``, ``read``, and whatever else the element holds) - and
:func:`parse_entries` turns those into :class:`InboxEntry` records. Claude Code's
elements already have that shape; another format translates its own.

The records here are NamedTuples and a slotted class, not dataclasses: every ``send``
reads an inbox, and importing ``dataclasses`` would cost it ~8 ms.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from teamdeck.errors import InvalidFile
from teamdeck.model.shape import validation_error
from teamdeck.model.team import InboxMessage, Kind, decode


class UnreadableInbox(InvalidFile):
    """An inbox that is not a JSON array after retries:
    ``inbox team-lead.json unreadable: expected a JSON array (got object)``."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(path, "", why)
        self.args = (f"inbox {path.name} unreadable: {why}",)


_UNDECODED: Any = object()
"""An :class:`InboxEntry`'s kind before its first use."""


class InboxEntry:
    """One element of an inbox array, valid or not (not changed once made).

    Attributes:
        index: its position in the array.
        raw: the element exactly as read.
        message: the element as a message, or None when it is not one.
        problem: why it is not a message (``"entry 3: text: Field required"``).
        drained: no longer in the file: Claude Code removed it after delivering it,
            and it is known from teamdeck's record of what it saw (protocol/team/observed.py).
    """

    __slots__ = ("index", "raw", "message", "problem", "drained", "_kind")

    def __init__(
        self, index: int, raw: Any, message: InboxMessage | None, problem: str | None = None, drained: bool = False
    ) -> None:
        self.index = index
        self.raw = raw
        self.message = message
        self.problem = problem
        self.drained = drained
        self._kind: Kind | None = _UNDECODED

    @property
    def kind(self) -> Kind | None:
        """The decoded protocol kind (computed on first use; None for a bad entry)."""
        if self._kind is _UNDECODED:
            self._kind = decode(self.message) if self.message is not None else None
        return self._kind


class Inbox(NamedTuple):
    """An inbox as read: its recipient (the file name) and its entries in file order."""

    path: Path
    recipient: str
    entries: list[InboxEntry]

    @property
    def messages(self) -> list[InboxEntry]:
        """The entries that are messages."""
        return [entry for entry in self.entries if entry.message is not None]

    @property
    def unread(self) -> list[InboxEntry]:
        """The messages not yet marked read."""
        return [entry for entry in self.entries if entry.message is not None and not entry.message.read]

    @property
    def problems(self) -> list[str]:
        """One line per entry that is not a message."""
        return [entry.problem for entry in self.entries if entry.problem]

    def extends(self, earlier: Inbox) -> bool:
        """Whether this read holds every entry of an ``earlier`` read of the file as the
        same objects in the same places (see :func:`read_inbox`), perhaps with more
        after them: what was derived from ``earlier`` still holds for that part."""
        return len(self.entries) >= len(earlier.entries) and all(
            mine is theirs for mine, theirs in zip(self.entries[: len(earlier.entries)], earlier.entries, strict=True)
        )


class Delivery(NamedTuple):
    """What an append did.

    Attributes:
        path: the inbox written.
        confirmed: the message was seen in the file after the write.
        attempts: how many appends it took (more than 1: another writer lost ours).
    """

    path: Path
    confirmed: bool
    attempts: int


def parse_entries(array: list[Any], known: Sequence[InboxEntry] = ()) -> list[InboxEntry]:
    """Each element of an inbox array as an :class:`InboxEntry`.

    Args:
        array: the inbox as read.
        known: the entries of an earlier read of the same file; an element equal to
            the known one at its place is taken over as it is (with its decoded kind)
            instead of being validated again.
    """
    entries = []
    for index, raw in enumerate(array):
        if index < len(known) and known[index].raw == raw:
            entries.append(known[index])
            continue
        try:
            entries.append(InboxEntry(index, raw, InboxMessage.model_validate(raw)))
        except validation_error() as err:
            first = err.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            why = "not a JSON object" if not isinstance(raw, dict) else f"{where}: {first['msg']}"
            entries.append(InboxEntry(index, raw, None, f"{entry_name(index)}: {why}"))
    return entries


def entry_name(index: int) -> str:
    """How an entry is named in messages (``entry 3``, counting from 1)."""
    return f"entry {index + 1}"


def same_message(a: Any, b: Any) -> bool:
    """Whether two entries are the same message: every field equal except ``read``
    (the recipient may have marked it read since)."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return False
    return {k: v for k, v in a.items() if k != "read"} == {k: v for k, v in b.items() if k != "read"}
