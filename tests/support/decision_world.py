"""Team requests that become decisions, made with the protocol functions
as a teammate would make them: permission requests, idle notifications; and a clock the
test moves forward (a shutdown request becomes overdue by time alone)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from teamdeck.clock import iso
from teamdeck.model.team import IdleNotification, PermissionRequest
from teamdeck.protocol.team.messaging.sending import Sent, send_structured
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace

START = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


class MovableClock:
    """A clock that stands still until the test moves it."""

    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def team(ws: Workspace, name: str = "alpha") -> None:
    """The lead and two teammates, alice and bob."""
    create_team(ws, name, description="the parser team")
    add_member(ws, name, "alice", model="sonnet")
    add_member(ws, name, "bob")


def team_workspace(root: Path) -> Workspace:
    """A new workspace at ``root`` on a clock the test moves, holding :func:`team`."""
    root.mkdir()
    ws = Workspace.at(root, clock=MovableClock(), actor="human:tester")
    team(ws)
    return ws


def ask_permission(
    ws: Workspace,
    team_name: str,
    member: str,
    request_id: str,
    *,
    tool: str = "Bash",
    tool_input: Any = None,
    description: str = "Run npm install",
    tool_use_id: str | None = None,
) -> Sent:
    """``member`` asks the lead to let it use ``tool`` (Claude Code's snake_case fields)."""
    request = PermissionRequest(
        request_id=request_id,
        agent_id=f"{member}@{team_name}",
        tool_name=tool,
        tool_use_id=tool_use_id or f"toolu_{request_id}",
        description=description,
        input=tool_input if tool_input is not None else {"command": "npm install"},
        permission_suggestions=[],
    )
    return send_structured(ws, team_name, "team-lead", request, sender=member)


def idle(ws: Workspace, team_name: str, member: str, reason: str = "available") -> None:
    """``member`` ends a turn: an idle notification to the lead, stamped now."""
    send_structured(
        ws,
        team_name,
        "team-lead",
        IdleNotification(from_=member, timestamp=iso(ws.clock()), idleReason=reason),
        sender=member,
    )
