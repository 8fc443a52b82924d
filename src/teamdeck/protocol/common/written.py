"""What a protocol call wrote, for the fronts that show the files: the TUI refreshes
exactly these paths after an action (no front computes which files a protocol function
touches), and drops the watcher's echo of its own write.

Every write goes through the store's one filesystem seam (store/fs.py), which records
the paths it changes while :func:`recording` is active in the calling thread, so the
record is complete for every protocol function without each result type listing them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Generic, NamedTuple, TypeVar

from teamdeck.store.files import Stamp, stamp
from teamdeck.store.fs import observing

T = TypeVar("T")

INTENTS = (".teamdeck", "intents")
"""Where the intents of multi-file actions are kept, under the workspace (protocol/common/intents.py)."""


class Written:
    """The paths one call changed, as the seam reported them: files replaced, appended
    to, linked, created or removed, directories made or removed; a temp file renamed or
    linked into place counts as its target, and a lock directory made and removed
    again is left out, as are the intents of the call's actions (``.teamdeck/intents/``,
    protocol/common/intents.py)."""

    def __init__(
        self, on_replaced: Callable[[Path], None] | None = None, on_write: Callable[[], None] | None = None
    ) -> None:
        self._changed: dict[Path, None] = {}
        self._transient: set[Path] = set()
        self._made_dirs: set[Path] = set()
        self._on_replaced = on_replaced
        self._on_write = on_write
        self._moved = False

    def __call__(self, change: str, raw: str | os.PathLike[str]) -> None:
        path = Path(raw)
        if path.parts[-3:-1] == INTENTS:  # an action's intent: bookkeeping, not a document
            self._moved = False
            return
        moved, self._moved = self._moved, change == "moved"
        if self._on_write is not None and not moved:
            self._on_write()  # a change begins (a replace's rename is one, its target's "write" is not)
        if change == "moved":
            self._transient.add(path)
            return
        if moved and change == "write" and self._on_replaced is not None:
            self._on_replaced(path)  # a whole new file is in place (a temp file renamed or linked there)
        if change == "rmdir" and path in self._made_dirs:
            self._transient.add(path)
        else:
            if change == "mkdir":
                self._made_dirs.add(path)
            self._changed[path] = None

    @property
    def paths(self) -> frozenset[Path]:
        return frozenset(path for path in self._changed if path not in self._transient)


class Recorded(NamedTuple, Generic[T]):
    """A protocol call's result with the paths it wrote (a NamedTuple, not a dataclass:
    importing ``dataclasses`` would cost every ``send`` ~8 ms)."""

    result: T
    written: frozenset[Path]


def recorded(
    call: Callable[[], T],
    written: set[Path] | None = None,
    on_replaced: Callable[[Path], None] | None = None,
    on_write: Callable[[], None] | None = None,
) -> Recorded[T]:
    """Run ``call`` (a protocol function) and return its result with what it wrote.

    Args:
        written: when given, filled with the written paths even if ``call`` raises
            (a refusal after a partial write still shows what changed).
        on_replaced: told, while ``call`` still runs, each file it replaced whole (a
            document such as task.yaml, which is in place complete once told): the TUI
            shows a decision as soon as task.yaml holds it, while the worker is still
            being messaged.
        on_write: told, on ``call``'s thread, as each change is made (a file
            opened for writing, renamed into place, made or removed; not the intents
            of its actions): the TUI lets a decision be drawn before its effects
            are written.
    """
    record = Written(on_replaced, on_write)
    with observing(record):
        try:
            result = call()
        finally:
            if written is not None:
                written.update(record.paths)
    return Recorded(result, record.paths)


def stamps(paths: Iterable[Path]) -> dict[Path, Stamp | None]:
    """Each path's (mtime ns, size) now, to recognise the watcher's report of the same
    write later (an equal stamp: nothing else wrote it in between)."""
    return {path: stamp(path) for path in paths}
