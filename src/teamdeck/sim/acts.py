"""What a teammate (and Claude Code on the lead's behalf) does, one protocol call each.

The demo-workspace generator and the demo's agents and scenario all act through these, so
the bundled history and the live demo are written the same way, by the same protocol
functions teamdeck's own commands use (``teamdeck send``, ``teamdeck shutdown``...):
every message is logged in ``messages.jsonl`` and appended under Claude Code's mkdir
lock, never written by hand. A teammate acts with its own identity:
:func:`as_member` gives a workspace whose ``actor`` is ``agent:<name>``.
"""

from __future__ import annotations

from teamdeck.clock import iso
from teamdeck.model.team import LEAD_NAME, IdleNotification, PermissionRequest, PlanApprovalRequest, TaskAssignment
from teamdeck.protocol.team.messaging.injection import Injected, inject
from teamdeck.protocol.team.messaging.sending import Sent, send_message, send_structured
from teamdeck.protocol.team.teams import epoch_ms
from teamdeck.store.workspace import Workspace


def as_member(ws: Workspace, member: str) -> Workspace:
    """``ws`` acting as teammate ``member`` (events and log records say ``agent:<member>``)."""
    return ws._replace(actor=f"agent:{member}")


def tell_lead(ws: Workspace, team: str, member: str, text: str, *, summary: str) -> Sent:
    """``member`` sends the lead a plain message (SendMessage ``type=message``)."""
    return send_message(as_member(ws, member), team, LEAD_NAME, text, summary=summary, sender=member)


def go_idle(
    ws: Workspace,
    team: str,
    member: str,
    *,
    reason: str = "available",
    summary: str | None = None,
    failure: str | None = None,
) -> Sent:
    """The ``idle_notification`` Claude Code sends the lead at the end of ``member``'s turn.

    Args:
        ws: the workspace.
        team: the team.
        member: the teammate whose turn ended.
        reason: ``available``, ``interrupted`` or ``failed``.
        summary: what the turn did, if anything worth saying.
        failure: why it failed (``failureReason``), with ``reason="failed"``.
    """
    fields: dict[str, object] = {"from": member, "timestamp": iso(ws.clock()), "idleReason": reason}
    if summary:
        fields["summary"] = summary
    if failure:
        fields["failureReason"] = failure
    return send_structured(
        as_member(ws, member), team, LEAD_NAME, IdleNotification.model_validate(fields), sender=member
    )


def ask_plan_approval(ws: Workspace, team: str, member: str, plan: str, *, plan_file: str) -> Sent:
    """A teammate in plan mode asks the lead to approve ``plan`` before it acts.

    The request id is Claude Code's ``plan_approval-<epochMs>@<member>@<team>``.
    """
    request = PlanApprovalRequest.model_validate(
        {
            "from": member,
            "timestamp": iso(ws.clock()),
            "planFilePath": plan_file,
            "planContent": plan,
            "requestId": f"plan_approval-{epoch_ms(ws)}@{member}@{team}",
        }
    )
    return send_structured(as_member(ws, member), team, LEAD_NAME, request, sender=member)


def ask_permission(ws: Workspace, team: str, member: str, tool: str, description: str, tool_input: object) -> Sent:
    """A teammate asks the lead to let it use ``tool`` with ``tool_input`` (Claude Code's
    ``permission_request``; the lead's answer is a ``permission_response``)."""
    request_id = f"perm-{epoch_ms(ws)}-{member}"
    request = PermissionRequest(
        request_id=request_id,
        agent_id=f"{member}@{team}",
        tool_name=tool,
        tool_use_id=f"toolu_{request_id}",
        description=description,
        input=tool_input,
        permission_suggestions=[],
    )
    return send_structured(as_member(ws, member), team, LEAD_NAME, request, sender=member)


def assign_task(ws: Workspace, team: str, owner: str, task_id: str, subject: str, description: str) -> Sent:
    """The ``task_assignment`` Claude Code writes to a task's new owner when the lead
    sets the owner of task ``task_id`` of the team's task list."""
    assignment = TaskAssignment(
        taskId=task_id, subject=subject, description=description, assignedBy=LEAD_NAME, timestamp=iso(ws.clock())
    )
    return send_structured(ws, team, owner, assignment)


def take_messages(ws: Workspace, team: str, member: str) -> list[Injected]:
    """``member`` starts a turn: its unread messages, marked read in one locked write
    (shutdown requests first), as Claude Code injects them."""
    return inject(as_member(ws, member), team, member)
