"""What a protocol call wrote, for the fronts that show the files: the TUI refreshes
exactly these paths after an action (no front computes which files a protocol function
touches), and drops the watcher's echo of its own write.

Every write goes through the store's one filesystem seam (store/fs.py), which records
the paths it changes while :func:`recording` is active in the calling thread, so the
record is complete for every protocol function without each result type listing them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from teamdeck.store.files import Stamp, stamp
from teamdeck.store.fs import recording_writes

T = TypeVar("T")


@dataclass(frozen=True)
class Recorded(Generic[T]):
    """A protocol call's result with the paths it wrote."""

    result: T
    written: frozenset[Path]


def recorded(call: Callable[[], T], written: set[Path] | None = None) -> Recorded[T]:
    """Run ``call`` (a protocol function) and return its result with what it wrote.

    Args:
        written: when given, filled with the written paths even if ``call`` raises
            (a refusal after a partial write still shows what changed).
    """
    with recording_writes() as record:
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
