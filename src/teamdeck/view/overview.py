"""The numbers at the top of every front: the TUI's header line and ``teamdeck status``.

Both read them from here so they always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from teamdeck.clock import parse_iso
from teamdeck.view.snapshot import WorkspaceSnapshot


@dataclass(frozen=True)
class Overview:
    """What a person wants to know first.

    Attributes:
        teams, tasks: how many.
        members: every member of every team.
        active, idle, offline: members by liveness (``active`` counts working,
            awaiting and shutting-down members; ``idle`` and ``offline`` are apart).
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

    def scanned(self) -> str:
        """What an empty queue was checked against: ``3 teams, 12 tasks scanned``."""
        return f"{self.teams} team{_s(self.teams)}, {self.tasks} task{_s(self.tasks)} scanned"


def overview(snapshot: WorkspaceSnapshot, now: datetime | None = None) -> Overview:
    """The :class:`Overview` of ``snapshot`` (ages measured at ``now``, default the
    snapshot's time)."""
    members = sum(len(team.members) for team in snapshot.teams)
    idle = sum(team.statuses["idle"] for team in snapshot.teams)
    offline = sum(team.statuses["offline"] for team in snapshot.teams)
    oldest = age(snapshot.gates[0].created_at, now or snapshot.taken_at) if snapshot.gates else ""
    return Overview(
        teams=len(snapshot.teams),
        tasks=len(snapshot.tasks),
        members=members,
        active=members - idle - offline,
        idle=idle,
        offline=offline,
        gates=len(snapshot.gates),
        oldest_gate_age=oldest,
        unread=snapshot.unread,
        problems=len(snapshot.problems),
        team_tasks=sum(len(listing.visible) for listing in snapshot.team_tasks),
        stalled=len(snapshot.stalled_tasks),
    )


def age(since: str, now: datetime) -> str:
    """How long ago ``since`` (ISO-8601) was, in the largest whole unit: ``45s``,
    ``12m``, ``3h``, ``2d``; ``""`` when ``since`` is not a timestamp."""
    try:
        seconds = int((now - parse_iso(since)).total_seconds())
    except (ValueError, TypeError):
        return ""
    seconds = max(0, seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _s(count: int) -> str:
    return "" if count == 1 else "s"
