"""The directory layout Claude Code's and Ripperdoc's team files share:
``teams/<team>/<roster>``, ``teams/<team>/<inboxes>/<member>.json`` and teamdeck's own
log beside them, ``teams/<team>/<log>``: how a changed path is sorted, how the inboxes
are listed, how a team directory is removed."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from teamdeck.errors import NotFound, WriteFailed
from teamdeck.formats.format import TeamFile
from teamdeck.store.atomic import is_temp_name
from teamdeck.store.paths import InvalidId, check_member, shown
from teamdeck.store.workspace import Workspace


def teams_layout_file(parts: tuple[str, ...], *, roster: str, inboxes: str, log: str) -> TeamFile | None:
    """What a changed path (its parts under the workspace root) is in that layout, or
    None when it is not under ``teams/<team>/`` or is none of its parts."""
    if len(parts) < 2 or parts[0] != "teams":
        return None
    team = parts[1]
    if len(parts) == 2:
        return TeamFile(team, "team")
    if parts[2] == roster and len(parts) == 3:
        return TeamFile(team, "roster")
    if parts[2] == log and len(parts) == 3:
        return TeamFile(team, "log")
    if parts[2] == inboxes:
        if len(parts) == 3:
            return TeamFile(team, "inboxes")
        name = parts[3]
        return TeamFile(team, "inbox", name[: -len(".json")] if name.endswith(".json") and len(parts) == 4 else None)
    return None


def list_inbox_files(ws: Workspace, directory: Path, inbox_of: Callable[[str], Path]) -> tuple[list[Path], list[str]]:
    """The inbox files in ``directory`` (``*.json``; hidden files and teamdeck's temp files
    skipped), each as ``inbox_of(member)`` names it.

    Returns:
        ``(paths, ignored)``: inboxes whose names are usable member names, sorted, and
        one line per file whose name fails the member allow-list (B17).
    """
    try:
        names = sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    paths, ignored = [], []
    for name in names:
        if not name.endswith(".json") or is_temp_name(name) or name.startswith("."):
            continue
        try:
            paths.append(inbox_of(check_member(name[: -len(".json")])))
        except InvalidId as err:
            ignored.append(f"{ws.rel(directory)}/{shown(name)}: ignored: {err}")
    return paths, ignored


def bury_team_dir(ws: Workspace, team: str, team_dir: Path, *, tombstone: str) -> str:
    """Remove a team's directory: renamed to ``teams/.<team>.deleted-<tombstone>`` first,
    so it disappears for readers in one step, then removed.

    Returns:
        The directory, relative to the workspace.

    Raises:
        NotFound: it does not exist.
        WriteFailed: the rename was refused; nothing was removed.
    """
    grave = ws.teams_dir / f".{team}.deleted-{tombstone}"
    try:
        os.rename(team_dir, grave)
    except FileNotFoundError:
        raise NotFound(f"team '{team}' not found: no {ws.rel(team_dir)}") from None
    except OSError as err:
        raise WriteFailed(f"could not delete team '{team}': {err.strerror or err}; nothing was removed") from err
    shutil.rmtree(grave, ignore_errors=True)
    return str(ws.rel(team_dir))
