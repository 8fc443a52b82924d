"""Whether a team and its members are still alive, judged by their activity.

A member's derived status (view/readers/team_roster.py) comes from what the files say happened:
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

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from teamdeck.view.snapshot.workspace import MemberView, TeamView

_EARLIEST = datetime.min.replace(tzinfo=UTC)
_LATEST = datetime.max.replace(tzinfo=UTC)


def quiet_since(member: MemberView, team: TeamView) -> datetime | None:
    """The member's last activity; for one with none, its team's newest; else None."""
    return team.quiet_since[team.members.index(member)]


def _stale(member: MemberView, since: datetime | None, now: datetime, after: timedelta) -> bool:
    return member.status != "offline" and since is not None and now - since >= after


def is_stale(member: MemberView, team: TeamView, now: datetime, after: timedelta) -> bool:
    """Whether ``member`` (not offline) has had no activity for ``after`` or longer."""
    return _stale(member, quiet_since(member, team), now, after)


def _judged(team: TeamView, now: datetime, after: timedelta) -> Iterator[tuple[MemberView, bool]]:
    """Each member of ``team`` with whether it is stale (:func:`is_stale`), from the
    team's activity times parsed once per view (:attr:`TeamView.quiet_since`)."""
    for member, since in zip(team.members, team.quiet_since, strict=True):
        yield member, _stale(member, since, now, after)


def has_ended(team: TeamView, now: datetime, after: timedelta, *, stale: int | None = None) -> bool:
    """Whether every member of ``team`` is offline or stale (a team with none has not);
    ``stale``: how many of its members are stale, when already counted (a stale member
    is never offline)."""
    stale = len(stale_in(team, now, after)) if stale is None else stale
    return bool(team.members) and stale + team.statuses["offline"] == len(team.members)


def stale_in(team: TeamView, now: datetime, after: timedelta) -> list[MemberView]:
    """The stale members of ``team``: worked out again only when ``now`` leaves the span
    in which the last answer holds (no member's quiet time crossing ``after`` in it), so
    the overview's pass over 2,000 members at every change and tick is a lookup per team."""
    kept = team.judged.get(after)
    if kept is not None and kept[0] <= now < kept[1]:
        return kept[2]
    stale = [member for member, is_stale_now in _judged(team, now, after) if is_stale_now]
    crossings = [since + after for since in team.quiet_since if since is not None]
    since_when = max((moment for moment in crossings if moment <= now), default=_EARLIEST)
    until = min((moment for moment in crossings if moment > now), default=_LATEST)
    team.judged[after] = (since_when, until, stale)
    return stale


def stale_members(teams: tuple[TeamView, ...], now: datetime, after: timedelta) -> frozenset[str]:
    """The keys (``team/name``) of the stale members of ``teams``."""
    return frozenset(member.key for team in teams for member in stale_in(team, now, after))


def ended_teams(teams: tuple[TeamView, ...], now: datetime, after: timedelta) -> frozenset[str]:
    """The names of the teams that have ended."""
    return frozenset(team.name for team in teams if has_ended(team, now, after))
