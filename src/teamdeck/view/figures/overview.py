"""The numbers at the top of every front: the TUI's header line and ``teamdeck status``.

Both read them from here so they always agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from teamdeck.clock import parse_iso
from teamdeck.view.figures.liveness import has_ended, stale_in
from teamdeck.view.snapshot.workspace import RESTING, WorkspaceSnapshot


@dataclass(frozen=True)
class Overview:
    """What a person wants to know first.

    Attributes:
        teams, tasks: how many.
        members: every member of every team.
        active, idle, offline, stale: members by liveness, from their derived
            status (``active`` counts working, running, awaiting and shutting-down
            members; ``idle`` the :data:`RESTING` ones: idle, never run, failed),
            except that a member quiet for ``staleAfterSeconds`` counts as ``stale``
            whatever its last status (view/figures/liveness.py).
        ended: teams whose members are all offline or stale.
        decisions: decisions waiting.
        oldest_decision_age: how long the oldest one has waited (``"12m"``), or ``""``.
        unread: unread messages in every inbox.
        problems: files that could not be read.
        team_tasks: tasks of the teams' Claude Code task lists (internal ones not counted).
        stalled: those of them that look stuck (view/readers/team_tasks.py).
    """

    teams: int
    tasks: int
    members: int
    active: int
    idle: int
    offline: int
    decisions: int
    oldest_decision_age: str
    unread: int
    problems: int
    team_tasks: int = 0
    stalled: int = 0
    stale: int = 0
    ended: int = 0

    def scanned(self) -> str:
        """What an empty queue was checked against: ``3 teams, 12 tasks scanned``."""
        return f"{self.teams} team{_s(self.teams)}, {self.tasks} task{_s(self.tasks)} scanned"


def overview(snapshot: WorkspaceSnapshot, now: datetime | None = None) -> Overview:
    """The :class:`Overview` of ``snapshot`` (ages measured at ``now``, default the
    snapshot's time)."""
    at = now or snapshot.taken_at
    members = sum(len(team.members) for team in snapshot.teams)
    offline = sum(team.statuses["offline"] for team in snapshot.teams)
    stale_by_team = [stale_in(team, at, snapshot.stale_after) for team in snapshot.teams]
    stale = [member for members in stale_by_team for member in members]
    idle = sum(team.statuses[status] for team in snapshot.teams for status in RESTING) - sum(
        member.status in RESTING for member in stale
    )
    oldest = age(snapshot.decisions[0].created_at, at) if snapshot.decisions else ""
    return Overview(
        teams=len(snapshot.teams),
        tasks=len(snapshot.tasks),
        members=members,
        active=members - idle - offline - len(stale),
        idle=idle,
        offline=offline,
        decisions=len(snapshot.decisions),
        oldest_decision_age=oldest,
        unread=snapshot.unread,
        problems=len(snapshot.problems),
        team_tasks=sum(len(listing.visible) for listing in snapshot.team_tasks),
        stalled=len(snapshot.stalled_tasks),
        stale=len(stale),
        ended=sum(
            has_ended(team, at, snapshot.stale_after, stale=len(members))
            for team, members in zip(snapshot.teams, stale_by_team, strict=True)
        ),
    )


def age(since: str, now: datetime) -> str:
    """How long ago ``since`` (ISO-8601) was, in the largest whole unit: ``45s``,
    ``12m``, ``3h``, ``2d``; ``""`` when ``since`` is not a timestamp.

    Counted between whole seconds (both moments cut to their second), so an age is the
    same whether ``now`` is exact (``teamdeck status``) or the second the TUI's clock
    tick drew (the TUI and the CLI agree at the same instant); floored, like a clock."""
    return ages_at(now)(since)


def ages_at(now: datetime) -> Callable[[str], str]:
    """:func:`age` of many timestamps at one ``now`` (its second worked out once)."""
    until_at = age_until(now)
    return lambda since: until_at(since)[0]


def age_until(now: datetime) -> Callable[[str], tuple[str, int]]:
    """For many timestamps at one ``now``: the :func:`age` and the first whole second
    (POSIX) at which it reads otherwise (``12m`` until its 13th minute starts), so a
    list can keep an age drawn until then: the gate list holds 2,500 at 10x."""
    now_second = _whole_second(now)

    def age_of(since: str) -> tuple[str, int]:
        try:
            start = _second_of(since)
        except (ValueError, TypeError):
            return "", NEVER
        seconds = now_second - start
        if seconds < 60:
            return f"{max(0, seconds)}s", max(now_second, start) + 1
        for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
            if seconds >= size:
                return f"{seconds // size}{unit}", start + (seconds // size + 1) * size
        raise AssertionError("unreachable: seconds >= 60")

    return age_of


NEVER = 2**62
"""The second an age that is not a timestamp changes at: never."""


@lru_cache(maxsize=65_536)
def _second_of(since: str) -> int:
    """The whole second (POSIX) of the timestamp ``since``: parsed once per text, as the
    TUI ages the same timestamps every second."""
    return _whole_second(parse_iso(since))


def _whole_second(moment: datetime) -> int:
    return math.floor(moment.timestamp())


def _s(count: int) -> str:
    return "" if count == 1 else "s"
