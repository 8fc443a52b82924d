"""The last known roster of each team teamdeck saw, kept after Claude Code deletes it.

Claude Code 2.1.332 runs one implicit team per interactive session
(``teams/session-<8 hex>/``, the hex the start of ``leadSessionId``) and removes that
directory when the session ends, config.json, inboxes and teamdeck's own files with
it, while ``tasks/session-<8 hex>/`` stays (FORMAT.md). What was said survives in
teamdeck's record of observed inbox messages (protocol/team/observed.py); this keeps the
roster beside it: the live view (the reader that records) writes
``.teamdeck/archive/<team>/config.json`` whenever it reads a config.json that differs
from the one archived, and a team whose directory is gone but whose archive is there is
read from the archive and the record, marked ended.

The archive is teamdeck's bookkeeping, outside ``teams/``; nothing reads it but
teamdeck, a read-only workspace writes none, and a copy that cannot be written is said
once in the log (the view goes on without it).
"""

from __future__ import annotations

import json
import logging
import os
import re
from pathlib import Path

from pydantic import ValidationError

from teamdeck.errors import TeamdeckError
from teamdeck.model.team import TeamConfig
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.paths import InvalidId, check_team
from teamdeck.store.workspace import Workspace

logger = logging.getLogger(__name__)

SESSION_TEAM = re.compile(r"session-([0-9a-f]{8})")
"""An implicit per-session team's name (Claude Code 2.1.332)."""


def session_of(team: str, config: TeamConfig | None) -> str:
    """The session a team belongs to: its lead's ``leadSessionId`` when the team is a
    session team (``session-<8 hex>`` and the id starts with them), else the 8 hex of a
    session team's name, else ``""`` (a team made by name, not by a session)."""
    found = SESSION_TEAM.fullmatch(team)
    if found is None:
        return ""
    lead_session = (config.leadSessionId or "") if config is not None else ""
    return lead_session if lead_session.startswith(found.group(1)) else found.group(1)


def archive_path(ws: Workspace, team: str) -> Path:
    """``.teamdeck/archive/<team>/config.json``."""
    return ws.root / ".teamdeck" / "archive" / check_team(team) / "config.json"


def keep_roster(ws: Workspace, team: str, config: TeamConfig) -> None:
    """Archive ``config`` as the team's last known roster, unless the archived one is the
    same (or the workspace is read-only)."""
    if ws.read_only:
        return
    path = archive_path(ws, team)
    data = (json.dumps(config.to_json(), indent=2, ensure_ascii=False) + "\n").encode()
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_replace(path, data, crash_prefix="archive")
    except (TeamdeckError, OSError) as err:
        logger.warning("%s: could not archive the roster: %s", ws.rel(path), err)


def archived_roster(ws: Workspace, team: str) -> TeamConfig | None:
    """The team's archived roster, or None (no archive, or one that cannot be read:
    logged, and the team is then not shown as ended)."""
    path = archive_path(ws, team)
    try:
        return TeamConfig.model_validate_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValidationError) as err:
        logger.warning("%s: unreadable archived roster: %s", ws.rel(path), err)
        return None


def archived_teams(ws: Workspace) -> list[str]:
    """The teams with an archived roster (valid names, sorted), whether or not their
    directory is still there."""
    try:
        children = sorted(os.listdir(ws.root / ".teamdeck" / "archive"))
    except (FileNotFoundError, NotADirectoryError):
        return []
    names = []
    for child in children:
        try:
            names.append(check_team(child))
        except InvalidId:
            continue
    return names
