"""Errors every layer raises and every front prints the same way.

Each error carries a one-line, human-actionable message: which file, where in it,
and what is wrong (or what was and was not changed). The CLI prints ``str(err)``;
the TUI shows it as a notice. No front ever shows a traceback for these.
"""

from __future__ import annotations

from pathlib import Path


class TeamdeckError(Exception):
    """Base of every error teamdeck reports to a person."""

    exit_code = 1


class InvalidFile(TeamdeckError):
    """A file could not be read as the format it should have.

    Attributes:
        path: the file (as given, usually workspace-relative for display).
        where: the place inside it: ``line 7``, ``$.gates[0].id``, or ``""``.
        why: what is wrong, in words.
    """

    def __init__(self, path: Path | str, where: str, why: str) -> None:
        self.path = Path(path)
        self.where = where
        self.why = why
        place = f" {where}" if where else ""
        super().__init__(f"{path}{place}: {why}")


class NotFound(TeamdeckError):
    """A task, gate, team, member or request that was named does not exist."""


class Refused(TeamdeckError):
    """The action is not allowed in the current state; nothing was written."""


class Conflict(TeamdeckError):
    """Someone else changed the same thing first; nothing of ours was written."""


class ReadOnly(TeamdeckError):
    """Writes are turned off (``--read-only``, a workspace setting, or EROFS)."""


class WriteFailed(TeamdeckError):
    """The disk refused a write; the message says what was and was not changed."""


class Busy(TeamdeckError):
    """A lock is held by another live process past the timeout."""


class NotDone(TeamdeckError):
    """The action is recorded but some of its effects are not done yet (a worker not
    told, a note not written): they are kept and finished later, and the message says
    which and how. Exit 3, as a send not yet confirmed delivered (F24)."""

    exit_code = 3
