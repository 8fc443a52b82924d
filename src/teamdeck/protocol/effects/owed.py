"""Every piece of work a member owes, whatever it is: a task delegation's report
(protocol/coordination/stall_scan.py) and work on Gitea, an issue ``working`` or a discussion without
its comment (protocol/forge/stalls.py), on one schedule. ``supervise`` nudges and asks
about them (protocol/autowork/stalls.py); ``status`` and the roster say why a member
counts as stalled.
"""

from __future__ import annotations

from datetime import datetime

from teamdeck.model.settings import AutoworkSettings
from teamdeck.protocol.coordination.stall_scan import Stall, busy_on_tasks, crafters_of, owed_tasks
from teamdeck.protocol.forge.stalls import owed_forge_work
from teamdeck.store.workspace import Workspace


def owed_work(ws: Workspace, settings: AutoworkSettings, now: datetime) -> list[Stall]:
    """Every piece of work owed, stalled or not yet: tasks (task id order), then Gitea work."""
    return [*owed_tasks(ws, settings, now), *owed_forge_work(ws, settings, now)]


def stalled_work(ws: Workspace, settings: AutoworkSettings, now: datetime) -> list[Stall]:
    """Every piece of work idle at least ``stallAfterSeconds``, or with a stall decision open."""
    return [stall for stall in owed_work(ws, settings, now) if stall.stalled]


def stalls_now(ws: Workspace) -> list[Stall]:
    """:func:`stalled_work` at the workspace's "now", with its ``autowork:`` settings (none
    when autowork is off: nobody is nudged, so nobody is called stalled)."""
    from teamdeck.store.settings import load_settings

    settings = load_settings(ws.root).autowork
    return stalled_work(ws, settings, ws.clock()) if settings.enabled else []


def idle_members(ws: Workspace, team: str, *, besides: str | None = None) -> list[str]:
    """The team's crafters (stall_scan ``crafters_of``; not ``besides``) that owe nothing:
    no report on a working task, no Gitea issue they are working on. Who a stalled
    member's work can go to, in roster order."""
    from teamdeck.protocol.team.teams import read_team
    from teamdeck.store.settings import load_settings

    busy = busy_on_tasks(ws, team)
    busy |= {
        stall.member.lower()
        for stall in owed_forge_work(ws, load_settings(ws.root).autowork, ws.clock())
        if stall.team == team and stall.kind == "issue"
    }
    return [
        name
        for name in crafters_of(read_team(ws, team))
        if name.lower() not in busy and (besides is None or name.lower() != besides.lower())
    ]
