"""Agent teams: create, add members, delete, and read (seed 004 §3, §7).

A team's files are kept in its team format (formats/registry.py finds it; Claude Code's,
formats/claude_code/, is ``teams/<team>/config.json``, ``teams/<team>/inboxes/`` and a
task list ``tasks/<team>/``, laid out exactly as Claude Code's TeamCreate does, so a
Claude Code session can join a team teamdeck made and the reverse). Roster changes are
read-modify-writes of the roster under the format's lock and are logged in
``messages.jsonl``. Deleting a team is refused while any teammate is active, with
Claude Code's own message.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Any

from teamdeck.errors import NotFound, Refused
from teamdeck.formats.registry import team_format, team_names
from teamdeck.model.team import COLORS, LEAD_NAME, MEMBER_ROLES, Member, TeamConfig
from teamdeck.store.paths import InvalidId, check_member, check_team, shown
from teamdeck.store.workspace import Workspace

if TYPE_CHECKING:
    from teamdeck.formats.task_lists import TaskList
    from teamdeck.model.team_log import LogType

DEFAULT_AGENT_TYPE = "general-purpose"
DEFAULT_BACKEND = "in-process"


def epoch_ms(ws: Workspace) -> int:
    """Now, by the workspace clock, in epoch milliseconds (Claude Code's ``createdAt``)."""
    return int(ws.clock().timestamp() * 1000)


_HOSTILE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
"""Controls, format characters (bidi, zero-width), surrogates, private-use, unassigned
and line breaks: a name holding one is refused, not renamed (S6)."""


def sanitize_team_name(name: str) -> str:
    """A team name as Claude Code makes its directory name: every character outside
    ``[A-Za-z0-9]`` becomes ``-``, then lowercased (``Checkout API`` -> ``checkout-api``).

    A name with a control or invisible character (``"a\nb"``, ``"ok\u202eexe"``) is
    refused rather than renamed: what the person typed is not what they would see.

    Raises:
        InvalidId: a hostile character, or the result is not a usable id (empty,
            starts with ``-`` as ``.hidden`` would, too long); the message names the
            name as given.
    """
    hostile = next((char for char in name if unicodedata.category(char) in _HOSTILE_CATEGORIES), None)
    if hostile is not None:
        raise InvalidId(
            f"invalid team name '{shown(name)}': control or invisible character U+{ord(hostile):04X} is not allowed"
        )
    directory = re.sub(r"[^A-Za-z0-9]", "-", name).lower()
    try:
        return check_team(directory)
    except InvalidId as err:
        given = f"'{shown(name)}'" + (f" (as a directory: '{shown(directory)}')" if directory != name else "")
        raise InvalidId(str(err).replace(f"'{shown(directory)}'", given, 1)) from None


def list_teams(ws: Workspace) -> list[str]:
    """The names of the teams in the workspace (:func:`team_listing` has the
    directories that were ignored too)."""
    return team_listing(ws)[0]


def team_listing(ws: Workspace) -> tuple[list[str], list[str]]:
    """The names of the teams, and the directories under ``teams/`` that were ignored
    (names no member or team may have, B17)."""
    return team_names(ws)


def read_team(ws: Workspace, team: str) -> TeamConfig:
    """The team's config.json.

    Raises:
        NotFound: no such team.
        InvalidFile: config.json is not a team config (after retries).
    """
    return team_format(ws, team).read_roster(ws, check_team(team))


def read_task_list(ws: Workspace, team: str) -> TaskList:
    """The team's task list, as its format reads it (Claude Code's: ``tasks/<team>/<n>.json``;
    use ``.visible`` to hide ``_internal`` tasks; statuses are kept as written)."""
    return team_format(ws, team).read_task_list(ws, check_team(team))


def _log(ws: Workspace, team: str, type_: LogType, **fields: Any) -> None:
    """Log a change of the team in its messages.jsonl (the log's writer is imported here:
    ``inbox --inject`` reads a roster and logs nothing)."""
    from teamdeck.protocol.team.teamlog import log, new_record

    log(ws, team, new_record(ws, type_, **fields))


def create_team(
    ws: Workspace, name: str, *, description: str = "", cwd: str = "", lead_model: str | None = None
) -> TeamConfig:
    """Create a team as TeamCreate does, with its lead registered as ``team-lead``.

    Args:
        ws: the workspace.
        name: the team name as given; it is sanitised into the directory name.
        description: the team description.
        cwd: the lead's working directory (recorded in the roster).
        lead_model: the lead's model, if known.

    Returns:
        The new config.

    Raises:
        ReadOnly: writes are off.
        InvalidId: the sanitised name is not usable.
        Refused: the team exists, or ``tasks/<name>/`` is a teamdeck task.
        WriteFailed: the disk refused; nothing was kept.
    """
    import uuid  # only a new team needs a session id (``send`` imports this module)

    ws.require_writable(f"create team '{shown(name)}'")
    team = sanitize_team_name(name)
    now = epoch_ms(ws)
    lead: dict[str, Any] = {"agentId": f"{LEAD_NAME}@{team}", "name": LEAD_NAME, "agentType": LEAD_NAME}
    if lead_model:
        lead["model"] = lead_model
    lead.update({"joinedAt": now, "tmuxPaneId": "", "cwd": cwd, "subscriptions": []})
    config = {
        "name": team,
        "description": description,
        "createdAt": now,
        "leadAgentId": f"{LEAD_NAME}@{team}",
        "leadSessionId": str(uuid.uuid4()),
        "members": [lead],
    }
    team_format(ws, team).create_team(ws, team, config)
    _log(ws, team, "team_created", member=LEAD_NAME)
    return TeamConfig.model_validate(config)


def _next_color(config: TeamConfig) -> str:
    used = [member.color for member in config.members if member.color]
    return next((color for color in COLORS if color not in used), COLORS[len(used) % len(COLORS)])


def add_member(
    ws: Workspace,
    team: str,
    name: str,
    *,
    agent_type: str = DEFAULT_AGENT_TYPE,
    model: str | None = None,
    color: str | None = None,
    plan_mode: bool = False,
    prompt: str = "",
    cwd: str = "",
    backend_type: str = DEFAULT_BACKEND,
    role: str | None = None,
) -> Member:
    """Add a teammate to the roster, as ``Task(team_name, teammate_name)`` does; a member
    of that name who shut down (inactive) is brought back instead (seed: start or resume).

    Args:
        ws: the workspace.
        team: the team.
        name: the member name (becomes its inbox file name; capitals allowed).
        agent_type, model, color, plan_mode, prompt, cwd, backend_type: the member's
            fields (``color`` defaults to the first colour no member has).
        role: teamdeck's role for it (coordinator, crafter, gate: protocol/coordination/roles.py).

    Returns:
        The member as written.

    Raises:
        ReadOnly: writes are off.
        InvalidId: the name is not usable as a file name.
        NotFound: no such team.
        Refused: the name is the lead's, or an active member has it (any case), or the
            colour is not one of Claude Code's.
    """
    ws.require_writable(f"add '{shown(name)}' to team '{team}'")
    check_team(team)
    check_member(name)
    if color is not None and color not in COLORS:
        raise Refused(f"Could not add '{name}': colour '{shown(color)}' is not one of {', '.join(COLORS)}")
    now = epoch_ms(ws)

    def change(raw: dict[str, Any]) -> tuple[tuple[Member, bool], bool]:
        config = TeamConfig.model_validate(raw)
        if config.is_lead(name):
            raise Refused(f"Could not add '{name}' to team '{team}': that is the team lead's name")
        existing = config.member(name)
        if existing is not None and existing.isActive:
            raise Refused(f"Could not add '{name}' to team '{team}': '{existing.name}' is already an active member")
        if existing is not None:
            entry = next(
                item for item in raw["members"] if isinstance(item, dict) and item.get("name") == existing.name
            )
            entry["isActive"] = True
            return (Member.model_validate(entry), True), True
        entry = {"agentId": f"{name}@{team}", "name": name, "agentType": agent_type}
        if model:
            entry["model"] = model
        entry.update(
            {
                "prompt": prompt,
                "color": color or _next_color(config),
                "planModeRequired": plan_mode,
                "joinedAt": now,
                "tmuxPaneId": "in-process" if backend_type == "in-process" else "",
                "cwd": cwd,
                "subscriptions": [],
                "backendType": backend_type,
                "isActive": True,
            }
        )
        if role is not None and role != "none":
            entry["role"] = role
        raw["members"].append(entry)
        return (Member.model_validate(entry), False), True

    member, reactivated = team_format(ws, team).change_roster(ws, team, change)
    _log(ws, team, "member_reactivated" if reactivated else "member_added", member=member.name)
    return member


def set_role(ws: Workspace, team: str, name: str, role: str) -> Member:
    """Give a member its role (seed 002: coordinator, crafter, gate; ``none`` removes it),
    in config.json, logged.

    Raises:
        ReadOnly: writes are off. NotFound: no such team or member.
        Refused: not a role, or the member is the lead (the person's session has no role).
    """
    ws.require_writable(f"set the role of '{shown(name)}' in team '{team}'")
    if role not in MEMBER_ROLES:
        raise Refused(
            f"Could not set the role of '{shown(name)}': '{shown(role)}' is not one of {', '.join(MEMBER_ROLES)}"
        )

    def change(raw: dict[str, Any]) -> tuple[Member, bool]:
        config = TeamConfig.model_validate(raw)
        found = config.member(name)
        if found is None:
            raise NotFound(f"No member '{shown(name)}' in team '{team}'")
        if config.is_lead(found.name):
            raise Refused(
                f"Could not set the role of '{found.name}': the team lead is the person's session, it has no role"
            )
        entry = next(item for item in raw["members"] if isinstance(item, dict) and item.get("name") == found.name)
        before = entry.get("role")
        if role == "none":
            entry.pop("role", None)
        else:
            entry["role"] = role
        return Member.model_validate(entry), before != entry.get("role")

    member = team_format(ws, team).change_roster(ws, team, change)
    _log(ws, team, "member_role_set", member=member.name, reason=role)
    return member


def delete_blockers(config: TeamConfig) -> list[str]:
    """The members whose being active blocks deleting the team (every active non-lead)."""
    return [member.name for member in config.active_teammates()]


def delete_refusal(team: str, blockers: list[str]) -> str:
    """Claude Code's refusal text, plus how to proceed with teamdeck."""
    return (
        f"Cannot cleanup team with {len(blockers)} active member(s): {', '.join(blockers)}. "
        "Use requestShutdown to gracefully terminate teammates first. "
        f"(With teamdeck: `teamdeck shutdown {team} MEMBER` for each; for one that approved "
        f"its shutdown but stays active, `teamdeck member deactivate {team} MEMBER`.)"
    )


def delete_team(ws: Workspace, team: str) -> list[str]:
    """Delete a team (TeamDelete): its ``teams/<team>/`` and its task list.

    Checked and done under config.json's lock, so no member can be added in between.

    Returns:
        The directories removed (workspace-relative).

    Raises:
        ReadOnly: writes are off.
        NotFound: no such team.
        Refused: a non-lead member is active; every one is named (the refusal is
            logged in messages.jsonl for the ledger's "TeamDelete blocked").
    """
    ws.require_writable(f"delete team '{team}'")
    check_team(team)
    tombstone = str(epoch_ms(ws))

    def change(raw: dict[str, Any]) -> tuple[list[str], bool]:
        blockers = delete_blockers(TeamConfig.model_validate(raw))
        if blockers:
            _log(ws, team, "team_delete_refused", blockers=blockers)
            raise Refused(delete_refusal(team, blockers))
        return team_format(ws, team).remove_team(ws, team, tombstone=tombstone), False

    return team_format(ws, team).change_roster(ws, team, change)
