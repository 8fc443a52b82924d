"""Whether a team and its members are still alive, judged by their activity.

A member's derived status (view/team_roster.py) comes from what the files say happened:
a teammate whose last turn never ended shows ``working`` forever. On real Claude Code
data that is a lie after a while: teams from months ago still count as active. A
member is **stale** when nothing it sent or received is younger than the workspace's
``staleAfterSeconds`` (default 6 hours: longer than any one agent turn plausibly runs,
shorter than a night); a member with no message at all is judged by its team's newest
activity. A team has **ended** when every member is offline or stale.

"active" in the overview means the derived state (working, awaiting, shutting down,
and not stale); ``isActive`` is the roster flag of config.json, which only says the
member was never deactivated.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from teamdeck.clock import parse_iso
from teamdeck.view.snapshot import MemberView, TeamView


def _newest(moments: list[str]) -> datetime | None:
    parsed = []
    for moment in moments:
        try:
            parsed.append(parse_iso(moment))
        except (ValueError, TypeError):
            continue
    return max(parsed, default=None)


def quiet_since(member: MemberView, team: TeamView) -> datetime | None:
    """The member's last activity; for one with none, its team's newest; else None."""
    own = _newest([member.last_activity]) if member.last_activity else None
    return own or _newest([other.last_activity for other in team.members if other.last_activity])


def is_stale(member: MemberView, team: TeamView, now: datetime, after: timedelta) -> bool:
    """Whether ``member`` (not offline) has had no activity for ``after`` or longer."""
    if member.status == "offline":
        return False
    since = quiet_since(member, team)
    return since is not None and now - since >= after


def has_ended(team: TeamView, now: datetime, after: timedelta) -> bool:
    """Whether every member of ``team`` is offline or stale (a team with none has not)."""
    return bool(team.members) and all(
        member.status == "offline" or is_stale(member, team, now, after) for member in team.members
    )


def stale_members(teams: tuple[TeamView, ...], now: datetime, after: timedelta) -> frozenset[str]:
    """The keys (``team/name``) of the stale members of ``teams``."""
    return frozenset(member.key for team in teams for member in team.members if is_stale(member, team, now, after))


def ended_teams(teams: tuple[TeamView, ...], now: datetime, after: timedelta) -> frozenset[str]:
    """The names of the teams that have ended."""
    return frozenset(team.name for team in teams if has_ended(team, now, after))
