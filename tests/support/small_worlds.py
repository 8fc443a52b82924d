"""Small workspaces made with the protocol functions, for the read-model tests.

A "world": task t1 (team alpha) with three workers - w1 blocked with questions (a
gate), w2 completed, w3 with an invalid final.json - and team alpha with the lead and
two teammates, alice and bob, and a few messages.
"""

from __future__ import annotations

from teamdeck.model.team import IdleNotification, PlanApprovalRequest, ShutdownApproved
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown
from teamdeck.protocol.team.messaging.sending import send_message, send_structured
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace


def blocked_task(ws: Workspace, task_id: str = "t1", team: str | None = "alpha") -> None:
    """A task with a blocked worker (one gate), a completed one and an invalid output."""
    create_task(ws, task_id, "Build the parser", team=team)
    write_final_output(
        ws,
        task_id,
        "w1",
        {"status": "blocked", "summary": "need a decision", "questions": ["Which grammar?", "May I add a dependency?"]},
    )
    write_final_output(ws, task_id, "w2", {"status": "completed", "summary": "tests added"})
    write_final_output(ws, task_id, "w3", {"status": "DONE"})
    join_task(ws, task_id)


def team(ws: Workspace, name: str = "alpha") -> None:
    """A team with the lead and two teammates."""
    create_team(ws, name, description="the parser team")
    add_member(ws, name, "alice", model="sonnet")
    add_member(ws, name, "bob", plan_mode=True)


def idle(ws: Workspace, team_name: str, member: str, reason: str = "available") -> None:
    """``member`` reports idle to the lead (as Claude Code does at the end of a turn)."""
    stamp = ws.clock().strftime("%Y-%m-%dT%H:%M:%S.000Z")
    send_structured(
        ws, team_name, "team-lead", IdleNotification(from_=member, timestamp=stamp, idleReason=reason), sender=member
    )


def plan_request(ws: Workspace, team_name: str, member: str, request_id: str = "plan-1") -> None:
    send_structured(
        ws,
        team_name,
        "team-lead",
        PlanApprovalRequest(
            from_=member, requestId=request_id, planFilePath="plans/p.md", planContent="1. parse\n2. test"
        ),
        sender=member,
    )


def world(ws: Workspace) -> None:
    team(ws)
    blocked_task(ws)
    send_message(ws, "alpha", "alice", "Please start on the lexer", summary="start lexer")


__all__ = ["blocked_task", "idle", "plan_request", "request_shutdown", "team", "world", "ShutdownApproved"]
