"""A Ripperdoc team's ``config.json``, translated to teamdeck's roster and back.

Ripperdoc's roster (``TeamConfig`` of ``ripperdoc/utils/collaboration/teams.py``) names
things otherwise than Claude Code's: ``taskListId``, ``version`` (+1 on every change),
``createdAt`` / ``updatedAt`` and each member's ``joinedAt`` in epoch *seconds* (floats),
the lead named in ``metadata.team_lead`` and marked ``role: "lead"`` (no
``leadAgentId``), and ``isActive`` true while a teammate's run loop runs. It is read
into teamdeck's shape (:func:`to_teamdeck`: milliseconds, ``leadAgentId`` from the
lead), and a change made in that shape is carried back field by field onto the raw
file (:func:`apply_changes`), so every field teamdeck does not know - ``metadata``,
``taskListId``, whatever a later Ripperdoc adds - stays as Ripperdoc wrote it.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
from collections.abc import Callable
from typing import Any, TypeVar

from teamdeck.errors import InvalidFile, NotFound, Refused, WriteFailed
from teamdeck.formats.layout import bury_team_dir
from teamdeck.formats.ripperdoc.files import (
    INBOXES,
    TEAM_LOCK,
    object_at,
    read_json,
    roster_file,
    team_dir,
    team_locked,
    write_json,
)
from teamdeck.model.team import TeamConfig
from teamdeck.store.loaders import validate_raw
from teamdeck.store.paths import InvalidId, check_team, shown
from teamdeck.store.workspace import Workspace

T = TypeVar("T")

LEAD_NAME = "team-lead"
"""The lead's name when ``metadata.team_lead`` names none (Ripperdoc's default)."""

MEMBER_FIELDS = ("agentId", "agentType", "tmuxPaneId", "backendType", "color", "role", "isActive")
"""Member fields both shapes name alike."""

_UNSAFE = re.compile(r"[^a-zA-Z0-9._-]+")


def sanitize_identifier(value: str, fallback: str) -> str:
    """A name as Ripperdoc stores it on disk (``tasks.sanitize_identifier``): runs of
    anything but letters, digits and ``._-`` become ``-``."""
    return _UNSAFE.sub("-", value.strip()).strip("-") or fallback


def shown_roster(ws: Workspace, team: str) -> str:
    """``teams/<team>/config.json`` as messages name it."""
    return str(ws.rel(roster_file(ws, team)))


def _ms(seconds: Any) -> Any:
    """Epoch seconds (Ripperdoc) as epoch milliseconds (teamdeck); anything else as is."""
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
        return int(seconds * 1000)
    return seconds


def lead_of(raw: dict[str, Any]) -> str:
    """The lead's name: ``metadata.team_lead``, else the member with ``role: lead``,
    else Ripperdoc's default."""
    metadata = object_at(raw, "metadata")
    named = metadata.get("team_lead")
    if isinstance(named, str) and named.strip():
        return named.strip()
    for member in raw.get("members") or ():
        if isinstance(member, dict) and member.get("role") == "lead" and isinstance(member.get("name"), str):
            return str(member["name"])
    return LEAD_NAME


def _member_to_teamdeck(member: Any, team: str) -> Any:
    if not isinstance(member, dict):
        return member  # reported by the validation of the whole roster
    mine: dict[str, Any] = {"name": member.get("name")}
    for key in MEMBER_FIELDS:
        if member.get(key) is not None:
            mine[key] = member[key]
    if isinstance(member.get("name"), str):
        mine.setdefault("agentId", f"{member['name']}@{team}")
    mine.setdefault("isActive", True)
    if member.get("joinedAt") is not None:
        mine["joinedAt"] = _ms(member["joinedAt"])
    metadata = member.get("metadata")
    if isinstance(metadata, dict) and isinstance(metadata.get("cwd"), str):
        mine["cwd"] = metadata["cwd"]
    return mine


def to_teamdeck(raw: dict[str, Any], team: str) -> dict[str, Any]:
    """The roster in teamdeck's shape (the JSON form of :class:`TeamConfig`)."""
    metadata = object_at(raw, "metadata")
    members = raw.get("members") if isinstance(raw.get("members"), list) else raw.get("members", [])
    mine: dict[str, Any] = {"name": raw.get("name")}
    if isinstance(metadata.get("description"), str):
        mine["description"] = metadata["description"]
    if raw.get("createdAt") is not None:
        mine["createdAt"] = _ms(raw["createdAt"])
    lead = lead_of(raw)
    mine["leadAgentId"] = f"{lead}@{team}"
    for member in members if isinstance(members, list) else ():
        if isinstance(member, dict) and member.get("name") == lead and isinstance(member.get("agentId"), str):
            mine["leadAgentId"] = member["agentId"]
    if isinstance(metadata.get("lead_session_id"), str):
        mine["leadSessionId"] = metadata["lead_session_id"]
    mine["members"] = (
        [_member_to_teamdeck(member, team) for member in members] if isinstance(members, list) else members
    )
    return mine


def _member_from_teamdeck(
    mine: dict[str, Any], original: dict[str, Any] | None, was: dict[str, Any] | None
) -> dict[str, Any]:
    """A member in Ripperdoc's shape: ``original`` (as read) with what changed in
    teamdeck's shape since ``was`` carried over; a new member starts from Ripperdoc's
    defaults. A field teamdeck knows and Ripperdoc does not (``model``, ``prompt``,
    ``cwd``...) is kept in the member's ``metadata``, which Ripperdoc keeps."""
    if original is None:
        member: dict[str, Any] = {"name": mine.get("name"), "agentType": "general-purpose", "role": "worker"}
        member |= {"isActive": True, "metadata": {}}
        was = {}
    else:
        member = copy.deepcopy(original)
        was = was or {}
    for key, value in mine.items():
        if key in was and was[key] == value:
            continue
        if key == "joinedAt":
            member[key] = value / 1000 if isinstance(value, (int, float)) and not isinstance(value, bool) else value
        elif key in ("name", *MEMBER_FIELDS):
            member[key] = value
        else:
            extra = object_at(member, "metadata")
            member["metadata"] = {**extra, key: value}
    return member


def apply_changes(raw: dict[str, Any], was: dict[str, Any], mine: dict[str, Any], now_s: float) -> None:
    """Carry a change made to the teamdeck-shaped roster (``was`` before, ``mine``
    after) onto Ripperdoc's ``raw`` config in place, bumping ``version`` and
    ``updatedAt`` as Ripperdoc does on every change."""
    originals = {m.get("name"): m for m in raw.get("members") or () if isinstance(m, dict)}
    befores = {m.get("name"): m for m in was.get("members") or () if isinstance(m, dict)}
    raw["members"] = [
        _member_from_teamdeck(member, originals.get(member.get("name")), befores.get(member.get("name")))
        for member in mine.get("members") or ()
    ]
    metadata = object_at(raw, "metadata")
    if mine.get("description") != was.get("description"):
        metadata["description"] = mine.get("description")
    if mine.get("leadSessionId") != was.get("leadSessionId"):
        metadata["lead_session_id"] = mine.get("leadSessionId")
    raw["metadata"] = metadata
    version = raw.get("version")
    raw["version"] = version + 1 if isinstance(version, int) and not isinstance(version, bool) else 2
    raw["updatedAt"] = now_s


def _check_raw(raw: dict[str, Any], where: str) -> None:
    """Refuse a config.json Ripperdoc itself would not load (its ``TeamConfig``: a
    ``name``, a ``taskListId``, members with a ``name`` and an ``agentType``)."""
    for key in ("name", "taskListId"):
        if not isinstance(raw.get(key), str):
            raise InvalidFile(where, f"$.{key}", "missing, or not a string")
    members = raw.get("members", [])
    if not isinstance(members, list):
        raise InvalidFile(where, "$.members", "not an array")
    for index, member in enumerate(members):
        if not isinstance(member, dict):
            raise InvalidFile(where, f"$.members[{index}]", "not an object")
        for key in ("name", "agentType"):
            if not isinstance(member.get(key), str):
                raise InvalidFile(where, f"$.members[{index}].{key}", "missing, or not a string")


def load_raw(ws: Workspace, team: str) -> dict[str, Any]:
    """``config.json`` as Ripperdoc wrote it, checked.

    Raises:
        NotFound: the team has no config.json.
        InvalidFile: naming the file, the place and the problem.
    """
    where = shown_roster(ws, team)
    try:
        raw: dict[str, Any] = read_json(roster_file(ws, team), dict, where)
    except FileNotFoundError:
        raise NotFound(f"team '{team}' not found: no {where}") from None
    _check_raw(raw, where)
    return raw


def read_roster(ws: Workspace, team: str) -> TeamConfig:
    """The team's roster in teamdeck's terms (raises as :func:`load_raw`)."""
    config: TeamConfig = validate_raw(TeamConfig, to_teamdeck(load_raw(ws, team), team), shown_roster(ws, team))
    return config


def task_list_id(ws: Workspace, team: str) -> str:
    """The team's ``taskListId`` (its task list is ``tasks/<id>/``); the sanitized team
    name, as Ripperdoc maps it, when the roster cannot be read."""
    try:
        raw = read_json(roster_file(ws, team), dict, shown_roster(ws, team))
    except (OSError, InvalidFile):
        raw = {}
    named = raw.get("taskListId")
    return sanitize_identifier(named if isinstance(named, str) else team, "default")


def change_roster(ws: Workspace, team: str, change: Callable[[dict[str, Any]], tuple[T, bool]]) -> T:
    """Read-modify-write the roster under Ripperdoc's team lock (see
    :meth:`~teamdeck.formats.format.TeamFormat.change_roster`)."""
    directory = team_dir(ws, team)
    if not roster_file(ws, team).is_file():
        raise NotFound(f"team '{team}' not found: no {shown_roster(ws, team)}")
    with team_locked(directory):
        raw = load_raw(ws, team)
        was = to_teamdeck(raw, team)
        mine = copy.deepcopy(was)
        result, changed = change(mine)
        if changed:
            validate_raw(TeamConfig, mine, shown_roster(ws, team))
            apply_changes(raw, was, mine, ws.clock().timestamp())
            write_json(roster_file(ws, team), raw, crash_prefix="config")
    return result


def create_team(ws: Workspace, team: str, config: dict[str, Any]) -> None:
    """Create ``teams/<team>/`` (config.json, inboxes/, .lock) and ``tasks/<list>/`` as
    Ripperdoc's TeamCreate does, from a roster in teamdeck's shape.

    Raises:
        Refused: the team exists. WriteFailed: the disk refused (nothing is kept).
    """
    directory = team_dir(ws, team)
    now_s = ws.clock().timestamp()
    lead_id = config.get("leadAgentId")
    lead = lead_id.split("@", 1)[0] if isinstance(lead_id, str) and lead_id else LEAD_NAME
    raw: dict[str, Any] = {
        "name": team,
        "taskListId": sanitize_identifier(team, "default"),
        "members": [],
        "metadata": {
            "team_lead": lead,
            **({"description": config["description"]} if config.get("description") else {}),
        },
        "version": 1,
        "createdAt": now_s,
        "updatedAt": now_s,
    }
    mine = copy.deepcopy(config)
    for member in mine.get("members") or ():
        if member.get("name") == lead:
            member.setdefault("role", "lead")
    apply_changes(raw, {"members": []}, mine, now_s)
    raw["version"] = 1
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        directory.mkdir()
    except FileExistsError:
        raise Refused(f"Could not create team '{team}': it already exists ({ws.rel(directory)})") from None
    except OSError as err:
        raise WriteFailed(f"could not create {ws.rel(directory)}: {err.strerror or err}; nothing was written") from err
    try:
        (directory / TEAM_LOCK).touch()
        (directory / INBOXES).mkdir()
        write_json(roster_file(ws, team), raw, crash_prefix="config")
        (ws.tasks_dir / raw["taskListId"]).mkdir(parents=True, exist_ok=True)
    except (OSError, WriteFailed) as err:
        shutil.rmtree(directory, ignore_errors=True)
        raise WriteFailed(f"could not create team '{team}': {err}; nothing was kept") from err


def remove_team(ws: Workspace, team: str, *, tombstone: str) -> list[str]:
    """Remove ``teams/<team>/`` and its task list as Ripperdoc's TeamDelete does (the
    team directory renamed to a grave first, so it goes for readers in one step).

    Raises:
        NotFound: the team does not exist. WriteFailed: nothing was removed.
    """
    directory = team_dir(ws, team)
    list_dir = ws.tasks_dir / task_list_id(ws, team)
    removed = [bury_team_dir(ws, team, directory, tombstone=tombstone)]
    if list_dir.is_dir() and not {"task.yaml", "events.jsonl"} & set(os.listdir(list_dir)):  # never a teamdeck task
        shutil.rmtree(list_dir, ignore_errors=True)
        removed.append(str(ws.rel(list_dir)))
    return removed


def list_team_names(ws: Workspace) -> tuple[list[str], list[str]]:
    """The Ripperdoc teams of the workspace: directories under ``teams/`` holding both
    ``config.json`` and Ripperdoc's ``.lock``; one line per directory whose name fails the
    allow-list."""
    try:
        children = sorted(os.listdir(ws.teams_dir))
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    names, ignored = [], []
    for child in children:
        if child.startswith("."):
            continue
        path = ws.teams_dir / child
        if not (path / TEAM_LOCK).is_file() or not (path / "config.json").is_file():
            continue
        try:
            names.append(check_team(child))
        except InvalidId as err:
            ignored.append(f"teams/{shown(child)}: ignored: {err}")
    return names, ignored
