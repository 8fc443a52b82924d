"""The numbers at the top of every front: the TUI's header line and ``teamdeck status``.

Both read them from here so they always agree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from teamdeck.clock import parse_iso
from teamdeck.view.liveness import has_ended, is_stale
from teamdeck.view.snapshot import WorkspaceSnapshot


@dataclass(frozen=True)
class Overview:
    """What a person wants to know first.

    Attributes:
        teams, tasks: how many.
        members: every member of every team.
        active, idle, offline, stale: members by liveness, from their derived
            status (``active`` counts working, awaiting and shutting-down members),
            except that a member quiet for ``staleAfterSeconds`` counts as ``stale``
            whatever its last status (view/liveness.py).
        ended: teams whose members are all offline or stale.
        gates: decisions waiting.
        oldest_gate_age: how long the oldest one has waited (``"12m"``), or ``""``.
        unread: unread messages in every inbox.
        problems: files that could not be read.
        team_tasks: tasks of the teams' Claude Code task lists (internal ones not counted).
        stalled: those of them that look stuck (view/team_tasks.py).
    """

    teams: int
    tasks: int
    members: int
    active: int
    idle: int
    offline: int
    gates: int
    oldest_gate_age: str
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
    stale = [
        member for team in snapshot.teams for member in team.members if is_stale(member, team, at, snapshot.stale_after)
    ]
    idle = sum(team.statuses["idle"] for team in snapshot.teams) - sum(member.status == "idle" for member in stale)
    oldest = age(snapshot.gates[0].created_at, at) if snapshot.gates else ""
    return Overview(
        teams=len(snapshot.teams),
        tasks=len(snapshot.tasks),
        members=members,
        active=members - idle - offline - len(stale),
        idle=idle,
        offline=offline,
        gates=len(snapshot.gates),
        oldest_gate_age=oldest,
        unread=snapshot.unread,
        problems=len(snapshot.problems),
        team_tasks=sum(len(listing.visible) for listing in snapshot.team_tasks),
        stalled=len(snapshot.stalled_tasks),
        stale=len(stale),
        ended=sum(has_ended(team, at, snapshot.stale_after) for team in snapshot.teams),
    )


def age(since: str, now: datetime) -> str:
    """How long ago ``since`` (ISO-8601) was, in the largest whole unit: ``45s``,
    ``12m``, ``3h``, ``2d``; ``""`` when ``since`` is not a timestamp."""
    try:
        seconds = int((now - parse_iso(since)).total_seconds())
    except (ValueError, TypeError):
        return ""
    seconds = max(0, seconds)
    for unit, size in UNITS:
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


UNITS = (("d", 86400), ("h", 3600), ("m", 60))


class Ages:
    """:func:`age` of many timestamps at a moment, each worked out again only once its
    text can have changed (``3d`` stays ``3d`` for a day): a list of 2,500 gates asks
    for every gate's age on each change of the workspace, which cost ~8 ms of parsing
    and formatting per change (more under load); a hit is a dict lookup.

    ``at(now)`` gives the age function of one moment; a timestamp not asked for at the
    latest moment is forgotten.
    """

    def __init__(self) -> None:
        self._known: dict[str, tuple[str, float, float]] = {}

    def at(self, now: datetime) -> Callable[[str], str]:
        moment = now.timestamp()
        known: dict[str, tuple[str, float, float]] = self._known
        fresh: dict[str, tuple[str, float, float]] = {}
        self._known = fresh

        def age_at(since: str) -> str:
            entry = fresh.get(since) or known.get(since)
            if entry is None or not entry[1] <= moment < entry[2]:
                entry = _age_entry(since, now)
            fresh[since] = entry
            return entry[0]

        return age_at


def _age_entry(since: str, now: datetime) -> tuple[str, float, float]:
    """``age(since, now)`` and the moments (POSIX seconds) between which it stays that text."""
    try:
        start = parse_iso(since).timestamp()
    except (ValueError, TypeError):
        return "", float("-inf"), float("inf")
    text = age(since, now)
    seconds = int(now.timestamp() - start)
    if seconds < 1:  # "0s" from any time before one second after ``since``
        return text, float("-inf"), start + 1
    size = next((size for _unit, size in UNITS if seconds >= size), 1)
    low = seconds // size * size
    return text, start + low, start + low + size


def _s(count: int) -> str:
    return "" if count == 1 else "s"
