"""Ripperdoc's team files as a :class:`~teamdeck.formats.format.TeamFormat`.

The layout (tests/fixtures/ripperdoc/FORMAT.md): ``teams/<team>/config.json`` (the
roster), ``teams/<team>/inboxes/<member>.json`` (never pruned; ``read`` is delivery),
``teams/<team>/messages.jsonl`` (Ripperdoc's own log), one flock on
``teams/<team>/.lock`` for all of them, and the task list ``tasks/<taskListId>/``. A
team is Ripperdoc's when its directory holds that ``.lock`` beside config.json (Claude
Code's team directories have none). The modules beside this one translate each file
to teamdeck's shape and back (roster.py, inbox.py, tasks.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from teamdeck.formats.format import TeamFile
from teamdeck.formats.layout import teams_layout_file
from teamdeck.formats.ripperdoc import files, inbox, roster

if TYPE_CHECKING:
    from teamdeck.errors import InvalidFile
    from teamdeck.formats.inboxes import Delivery, Inbox
    from teamdeck.formats.task_lists import TaskList, TaskListing
    from teamdeck.model.team import ClaudeTask, TeamConfig
    from teamdeck.store.workspace import Workspace

T = TypeVar("T")


class RipperdocFormat:
    """Ripperdoc 0.6.2's team files (see the module)."""

    name = "ripperdoc"
    areas: tuple[str, ...] = ("teams", "tasks")
    inbox_wakes_inactive = False

    def has_team(self, ws: Workspace, team: str) -> bool:
        directory = files.team_dir(ws, team)
        return (directory / files.TEAM_LOCK).is_file() and (directory / files.ROSTER).is_file()

    def team_names(self, ws: Workspace) -> tuple[list[str], list[str]]:
        return roster.list_team_names(ws)

    def roster_file(self, ws: Workspace, team: str) -> Path:
        return files.roster_file(ws, team)

    def inboxes_dir(self, ws: Workspace, team: str) -> Path:
        return files.inboxes_dir(ws, team)

    def inbox(self, ws: Workspace, team: str, member: str) -> Path:
        return files.inbox_file(ws, team, member)

    def inbox_paths(self, ws: Workspace, team: str) -> tuple[list[Path], list[str]]:
        return inbox.list_inbox_paths(ws, team)

    def recipient_of(self, path: Path) -> str:
        return inbox.recipient_of(path)

    def shutdown_request_id(self, member: str, stamp_ms: int) -> str:
        return inbox.new_request_id()

    def log_file(self, ws: Workspace, team: str) -> Path:
        return files.team_dir(ws, team) / files.TEAMDECK_LOG

    def task_list_dir(self, ws: Workspace, team: str) -> Path:
        return ws.tasks_dir / roster.task_list_id(ws, team)

    def holds_task_list(self, names: list[str]) -> bool:
        return files.TEAM_LOCK in names or ".highwatermark" in names

    def file_of(self, parts: tuple[str, ...]) -> TeamFile | None:
        return teams_layout_file(parts, roster=files.ROSTER, inboxes=files.INBOXES, log=files.TEAMDECK_LOG)

    def read_roster(self, ws: Workspace, team: str) -> TeamConfig:
        return roster.read_roster(ws, team)

    def change_roster(self, ws: Workspace, team: str, change: Callable[[dict[str, Any]], tuple[T, bool]]) -> T:
        return roster.change_roster(ws, team, change)

    def create_team(self, ws: Workspace, team: str, config: dict[str, Any]) -> None:
        roster.create_team(ws, team, config)

    def remove_team(self, ws: Workspace, team: str, *, tombstone: str) -> list[str]:
        return roster.remove_team(ws, team, tombstone=tombstone)

    def read_inbox(self, path: Path, earlier: Inbox | None = None) -> Inbox:
        return inbox.read_inbox(path, earlier)

    def append_message(self, path: Path, message: dict[str, Any]) -> Delivery:
        return inbox.append_message(path, message)

    def mark_read(self, path: Path, wanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        return inbox.mark_read(path, wanted)

    def take_unread(self, path: Path) -> list[dict[str, Any]]:
        return inbox.take_unread(path)

    def mark_unread(self, path: Path, wanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        return inbox.mark_unread(path, wanted)

    # The task list's module imports dataclasses (formats/task_lists.py): not on the
    # path of a send.

    def task_listing(self, ws: Workspace, team: str) -> TaskListing:
        from teamdeck.formats.ripperdoc import tasks

        return tasks.listing(ws, team)

    def read_task(self, ws: Workspace, team: str, name: str) -> ClaudeTask:
        from teamdeck.formats.ripperdoc import tasks

        return tasks.read_task(ws, team, name)

    def task_shown(self, ws: Workspace, team: str, name: str) -> str:
        from teamdeck.formats.ripperdoc import tasks

        return tasks.shown_task(ws, team, name)

    def misnamed_task(self, ws: Workspace, team: str, name: str) -> InvalidFile:
        from teamdeck.formats.ripperdoc import tasks

        return tasks.misnamed(ws, team, name)

    def read_task_list(self, ws: Workspace, team: str) -> TaskList:
        from teamdeck.formats.ripperdoc import tasks

        return tasks.read_all(ws, team)

    def check_task_id(self, task_id: str) -> None:
        from teamdeck.formats.ripperdoc import tasks

        tasks.check_task_id(task_id)

    def update_task(
        self, ws: Workspace, team: str, task_id: str, changes: Mapping[str, Any]
    ) -> tuple[ClaudeTask, ClaudeTask]:
        from teamdeck.formats.ripperdoc import tasks

        return tasks.update_task(ws, team, task_id, changes)
