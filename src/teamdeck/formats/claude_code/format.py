"""Claude Code's team files as a :class:`~teamdeck.formats.format.TeamFormat`.

The layout (FORMAT.md): ``teams/<team>/config.json`` (the roster),
``teams/<team>/inboxes/<member>.json`` (one JSON array per recipient, locked with the
``<file>.lock`` directory Claude Code makes) and ``tasks/<team>/`` (the task list). Its
entries are already teamdeck's message shape, so they pass the seam untouched and
every write is the byte-exact one the modules beside this one make (inbox.py,
teamfiles.py, tasks.py, json_files.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from teamdeck.formats.claude_code import inbox, teamfiles
from teamdeck.formats.format import TeamFile
from teamdeck.formats.layout import teams_layout_file

if TYPE_CHECKING:
    from collections.abc import Mapping

    from teamdeck.errors import InvalidFile
    from teamdeck.formats.inboxes import Delivery, Inbox
    from teamdeck.formats.task_lists import TaskList, TaskListing
    from teamdeck.model.team import ClaudeTask, TeamConfig
    from teamdeck.store.workspace import Workspace

T = TypeVar("T")

ROSTER = "config.json"
INBOXES = "inboxes"
LOG = "messages.jsonl"


class ClaudeCodeFormat:
    """Claude Code's agent-team files (see the module)."""

    name = "claude-code"
    areas: tuple[str, ...] = ("teams", "tasks")
    inbox_wakes_inactive = True

    def has_team(self, ws: Workspace, team: str) -> bool:
        return not teamfiles.is_tombstone(team) and ws.team_config(team).is_file()

    def team_names(self, ws: Workspace) -> tuple[list[str], list[str]]:
        return teamfiles.list_team_names(ws)

    def roster_file(self, ws: Workspace, team: str) -> Path:
        return ws.team_config(team)

    def inboxes_dir(self, ws: Workspace, team: str) -> Path:
        return ws.inboxes_dir(team)

    def inbox(self, ws: Workspace, team: str, member: str) -> Path:
        return ws.inbox(team, member)

    def inbox_paths(self, ws: Workspace, team: str) -> tuple[list[Path], list[str]]:
        return teamfiles.list_inbox_paths(ws, team)

    def recipient_of(self, path: Path) -> str:
        return inbox.recipient_of(path)

    def shutdown_request_id(self, member: str, stamp_ms: int) -> str:
        return f"shutdown-{stamp_ms}@{member}"  # what Claude Code's own lead writes

    def log_file(self, ws: Workspace, team: str) -> Path:
        return ws.messages_log(team)

    def task_list_dir(self, ws: Workspace, team: str) -> Path:
        return ws.claude_tasks_dir(team)

    def holds_task_list(self, names: list[str]) -> bool:
        return teamfiles.holds_task_list(names)

    def file_of(self, parts: tuple[str, ...]) -> TeamFile | None:
        return teams_layout_file(parts, roster=ROSTER, inboxes=INBOXES, log=LOG)

    def read_roster(self, ws: Workspace, team: str) -> TeamConfig:
        return teamfiles.read_team_config(ws, team)

    def change_roster(self, ws: Workspace, team: str, change: Callable[[dict[str, Any]], tuple[T, bool]]) -> T:
        return teamfiles.transact_config(ws, team, change)

    def create_team(self, ws: Workspace, team: str, config: dict[str, Any]) -> None:
        teamfiles.create_team_files(ws, team, config)

    def remove_team(self, ws: Workspace, team: str, *, tombstone: str) -> list[str]:
        return teamfiles.remove_team_files(ws, team, tombstone=tombstone)

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

    # The task list's module imports dataclasses: not on the path of a send.

    def task_listing(self, ws: Workspace, team: str) -> TaskListing:
        from teamdeck.formats.claude_code.tasks import list_task_files

        return list_task_files(ws, team)

    def read_task(self, ws: Workspace, team: str, name: str) -> ClaudeTask:
        from teamdeck.formats.claude_code.tasks import read_task_file

        return read_task_file(ws, team, name)

    def task_shown(self, ws: Workspace, team: str, name: str) -> str:
        from teamdeck.formats.claude_code.tasks import shown_task_path

        return shown_task_path(ws, team, name)

    def misnamed_task(self, ws: Workspace, team: str, name: str) -> InvalidFile:
        from teamdeck.formats.claude_code.tasks import misnamed_problem

        return misnamed_problem(ws, team, name)

    def read_task_list(self, ws: Workspace, team: str) -> TaskList:
        from teamdeck.formats.claude_code.tasks import read_claude_tasks

        return read_claude_tasks(ws, team)

    def check_task_id(self, task_id: str) -> None:
        from teamdeck.formats.claude_code.tasks import task_file_name

        task_file_name(task_id)

    def update_task(
        self, ws: Workspace, team: str, task_id: str, changes: Mapping[str, Any]
    ) -> tuple[ClaudeTask, ClaudeTask]:
        from teamdeck.formats.claude_code.tasks import update_task_file

        return update_task_file(ws, team, task_id, changes)
