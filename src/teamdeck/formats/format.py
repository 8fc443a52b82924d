"""What an agent tool's team files are, as teamdeck needs them: the :class:`TeamFormat` seam.

A team format is one agent tool's way of keeping a team on disk (Claude Code's is
formats/claude_code/). It says where a workspace keeps that tool's teams, their rosters,
inboxes and task lists; it reads them into teamdeck's own records (the roster and
member of model/team.py, the inbox entries of formats/inboxes.py); and it writes a
message, a protocol answer or a roster change in the tool's own shape under the tool's
own lock. Everything above this layer (protocol/, view/, the fronts) reaches a team's
files only through the format that owns the team (formats/registry.py finds it).

Messages and rosters cross the seam in teamdeck's shape: the JSON form of
:class:`~teamdeck.model.team.InboxMessage` (``from``, ``text``, ``summary``,
``timestamp``, ``color``, ``read``; a protocol message is the compact JSON of its kind in
``text``) and of :class:`~teamdeck.model.team.TeamConfig`. A format whose files hold
other field names translates on the way in and out; Claude Code's files already have
that shape, so its format hands them over as they are and writes them byte for byte.

No class implements this by inheritance: a format is any object with these members
(a ``typing.Protocol``, checked by mypy where a format is registered).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Mapping

    from teamdeck.errors import InvalidFile
    from teamdeck.formats.inboxes import Delivery, Inbox
    from teamdeck.formats.task_lists import TaskList, TaskListing
    from teamdeck.model.team import ClaudeTask, TeamConfig
    from teamdeck.store.workspace import Workspace

T = TypeVar("T")


class TeamFile(NamedTuple):
    """What a changed path under the workspace is to a format (see
    :meth:`TeamFormat.file_of`).

    Attributes:
        team: the team it belongs to.
        what: ``"team"`` (the team directory itself or something in it no part
            below names), ``"roster"``, ``"inbox"``, ``"inboxes"`` (the directory) or
            ``"log"`` (teamdeck's own log of the team, :meth:`TeamFormat.log_file`).
        member: for an inbox, the recipient whose inbox it is.
    """

    team: str
    what: Literal["team", "roster", "inbox", "inboxes", "log"]
    member: str | None = None


class TeamFormat(Protocol):
    """One agent tool's team files (see the module).

    Attributes:
        name: the format's registered name (``claude-code``), as ``--json`` and
            messages name it.
        areas: the directories at the workspace root that hold its files (``teams``,
            ``tasks``): what ``validate`` and ``doctor`` walk for leftovers.
        inbox_wakes_inactive: whether a member marked inactive (``isActive: false``)
            is still woken by a message in its inbox. Claude Code's inactive tmux
            teammate is only waiting, and its next message wakes it; a Ripperdoc
            teammate is inactive once its run loop has ended, and nothing reads its
            inbox until the lead spawns it again (doctor's ``not_injected``).
    """

    name: str
    areas: tuple[str, ...]
    inbox_wakes_inactive: bool

    # --- where things are --------------------------------------------------------

    def has_team(self, ws: Workspace, team: str) -> bool:
        """Whether ``team`` is a team of this format (its roster file exists): how a
        team's format is detected. One ``stat``: ``send`` asks it on every turn."""
        ...

    def team_names(self, ws: Workspace) -> tuple[list[str], list[str]]:
        """The teams of this format in the workspace, sorted, and one line per directory
        skipped because its name fails the id allow-list."""
        ...

    def roster_file(self, ws: Workspace, team: str) -> Path:
        """The file that holds the team's roster (what a message about it names)."""
        ...

    def inboxes_dir(self, ws: Workspace, team: str) -> Path:
        """The directory holding the team's inboxes (watched for new ones)."""
        ...

    def inbox(self, ws: Workspace, team: str, member: str) -> Path:
        """The inbox file of ``member`` (checked against the member allow-list)."""
        ...

    def inbox_paths(self, ws: Workspace, team: str) -> tuple[list[Path], list[str]]:
        """The team's inbox files, sorted, and one line per file whose name fails the
        member allow-list."""
        ...

    def recipient_of(self, path: Path) -> str:
        """The member an inbox file belongs to."""
        ...

    def shutdown_request_id(self, member: str, stamp_ms: int) -> str:
        """A new ``requestId`` for a shutdown request to ``member``, in the tool's own
        form (its agents answer with the id they were shown, and its code may parse it).
        ``stamp_ms`` is the clock's epoch milliseconds, moved on by one while the id is
        taken, so a format whose ids come from the clock stays distinct."""
        ...

    def log_file(self, ws: Workspace, team: str) -> Path:
        """Where teamdeck keeps its own log of what it did in the team (sends, handshakes,
        roster changes: model/team_log.py), a file the agent tool never reads as its own."""
        ...

    def task_list_dir(self, ws: Workspace, team: str) -> Path:
        """The directory of the team's shared task list."""
        ...

    def holds_task_list(self, names: list[str]) -> bool:
        """Whether a directory under ``tasks/`` holding the files ``names`` is one of
        this format's task lists (``tasks/`` also holds teamdeck's own tasks)."""
        ...

    def file_of(self, parts: tuple[str, ...]) -> TeamFile | None:
        """What a changed path is (its parts relative to the workspace root), or None
        when it is none of this format's files: how a watcher batch is sorted."""
        ...

    # --- the roster --------------------------------------------------------------

    def read_roster(self, ws: Workspace, team: str) -> TeamConfig:
        """The team's roster.

        Raises:
            NotFound: the team has no roster file.
            InvalidFile: naming the file and the first problem.
        """
        ...

    def change_roster(self, ws: Workspace, team: str, change: Callable[[dict[str, Any]], tuple[T, bool]]) -> T:
        """Read-modify-write the roster under the tool's lock.

        Args:
            ws: the workspace.
            team: the team.
            change: given the roster in teamdeck's shape as read under the lock (to
                mutate in place), returns ``(result, changed)``; the file is rewritten,
                in the tool's shape, only when ``changed`` and still a valid roster.

        Raises:
            NotFound, InvalidFile: see :meth:`read_roster`.
            Busy, WriteFailed: the lock or the disk refused; nothing changed.
        """
        ...

    def create_team(self, ws: Workspace, team: str, config: dict[str, Any]) -> None:
        """Create the team's files from a roster in teamdeck's shape.

        Raises:
            Refused: the team exists, or its place is taken by something else.
            WriteFailed: the disk refused; what was created is removed again.
        """
        ...

    def remove_team(self, ws: Workspace, team: str, *, tombstone: str) -> list[str]:
        """Remove the team's files (``tombstone`` names the grave while they go).

        Returns:
            The workspace-relative directories removed.

        Raises:
            NotFound: the team does not exist.
            WriteFailed: nothing was removed.
        """
        ...

    # --- inboxes -------------------------------------------------------------------

    def read_inbox(self, path: Path, earlier: Inbox | None = None) -> Inbox:
        """One inbox as read (``earlier``: a previous read of it, whose unchanged
        entries are taken over). A missing file is an empty inbox.

        Raises:
            UnreadableInbox: the file cannot be read as an inbox (this one alone).
        """
        ...

    def append_message(self, path: Path, message: dict[str, Any]) -> Delivery:
        """Append one message (in teamdeck's shape) under the tool's lock, and confirm
        it landed.

        Raises:
            UnreadableInbox, Busy, WriteFailed: nothing was appended.
        """
        ...

    def mark_read(self, path: Path, wanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """Mark the unread messages ``wanted`` selects (offered in teamdeck's shape) as
        read, under the tool's lock.

        Returns:
            The messages marked, as they were before, in teamdeck's shape and file order.
        """
        ...

    def take_unread(self, path: Path) -> list[dict[str, Any]]:
        """Every unread message, marked read in the same locked write (delivering them)."""
        ...

    def mark_unread(self, path: Path, wanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """Mark the read messages ``wanted`` selects (offered in teamdeck's shape) as
        unread again, under the tool's lock: the runner gives a failed run's messages
        back to its retry this way (F22).

        Returns:
            The messages marked, as they were before, in teamdeck's shape and file order.
        """
        ...

    # --- the task list (formats/task_lists.py) -----------------------------------

    def task_listing(self, ws: Workspace, team: str) -> TaskListing:
        """The entries of the team's task list (none when it does not exist)."""
        ...

    def read_task(self, ws: Workspace, team: str, name: str) -> ClaudeTask:
        """One entry of the task list, checked.

        Raises:
            FileNotFoundError: it is gone.
            InvalidFile: naming the entry and what is wrong with it.
        """
        ...

    def task_shown(self, ws: Workspace, team: str, name: str) -> str:
        """How messages name an entry of the task list (``tasks/alpha/3.json``)."""
        ...

    def misnamed_task(self, ws: Workspace, team: str, name: str) -> InvalidFile:
        """The problem of a :attr:`~teamdeck.formats.task_lists.TaskListing.misnamed` entry."""
        ...

    def read_task_list(self, ws: Workspace, team: str) -> TaskList:
        """Every entry of the task list; a bad one is reported, the others still read."""
        ...

    def check_task_id(self, task_id: str) -> None:
        """Refuse an id no task of this format can have.

        Raises:
            NotFound: naming the form task ids take.
        """
        ...

    def update_task(
        self, ws: Workspace, team: str, task_id: str, changes: Mapping[str, Any]
    ) -> tuple[ClaudeTask, ClaudeTask]:
        """Change fields of one task as the tool itself would, under the list's lock
        (fields not named kept exactly).

        Returns:
            The task before and after.

        Raises:
            NotFound: no such task. InvalidFile: it is not a valid task (left as it is).
            Busy, WriteFailed: the lock or the disk refused; nothing changed.
        """
        ...
