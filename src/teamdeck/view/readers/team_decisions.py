"""The decisions a Claude Code team waits for, built from its ledger and inboxes: plan
approvals, permission requests and stuck shutdowns, one :class:`Decision` each with
its stable key (the caller sorts the whole queue, oldest first)."""

from __future__ import annotations

from typing import TypeVar

from teamdeck.formats.inboxes import Inbox
from teamdeck.model.team import Kind, PermissionRequest, PlanApprovalRequest, SandboxPermissionRequest
from teamdeck.protocol.team.ledger.results import Handshake
from teamdeck.view.readers.inbox_fold import raw_text
from teamdeck.view.readers.team_files import TeamFiles
from teamdeck.view.snapshot.workspace import Decision, TeamView

RequestKind = TypeVar("RequestKind", bound=Kind)


def team_decisions(files: TeamFiles, team: TeamView) -> list[Decision]:
    """Every decision the team waits for: plan approvals, permission requests and
    stuck shutdowns (the caller sorts the whole queue, oldest first). An ended team
    waits for nothing: nobody is there to take an answer."""
    if files.ended:
        return []
    return (
        plan_decisions(files, team) + permission_decisions(files) + sandbox_decisions(files) + shutdown_decisions(files)
    )


def plan_decisions(files: TeamFiles, team: TeamView) -> list[Decision]:
    """The team's unanswered plan approval requests as decisions, one per request."""
    if files.ledger is None:
        return []
    gates = []
    for handshake in files.ledger.handshakes:
        if handshake.kind != "plan" or handshake.state != "awaiting_decision":
            continue
        request = _find_request(files, handshake, PlanApprovalRequest)
        gates.append(
            _decision(
                files, handshake, "plan", "plan-approval", f"plan approval requested by {handshake.member}",
                reason=(request.planFilePath or "") if request else "",
                body=(request.planContent or "") if request else "",
            )
        )  # fmt: skip
    return gates


def permission_decisions(files: TeamFiles) -> list[Decision]:
    """The team's open permission requests as decisions: the tool, what it is for, and its
    input (raw here; fronts sanitise)."""
    if files.ledger is None:
        return []
    gates = []
    for handshake in files.ledger.handshakes:
        if handshake.kind != "permission" or handshake.state != "awaiting_decision":
            continue
        request = _find_request(files, handshake, PermissionRequest)
        tool = (request.tool_name if request else None) or "a tool"
        about = f": {request.description}" if request and request.description else ""
        gates.append(
            _decision(
                files, handshake, "permission", "permission", f"{handshake.member} asks to use {tool}{about}",
                tool=tool,
                reason=(request.description or "") if request else "",
                body=raw_text(request.input) if request else "",
            )
        )  # fmt: skip
    return gates


def shutdown_decisions(files: TeamFiles) -> list[Decision]:
    """Shutdown requests that waited past the timeout with no reply, as decisions whose
    two answers are "resend" and "force offline"."""
    if files.ledger is None:
        return []
    return [
        _decision(
            files,
            handshake,
            "shutdown",
            "shutdown-stuck",
            f"awaiting shutdown_response since {handshake.requested_at}",
            reason=handshake.detail,
        )
        for handshake in files.ledger.handshakes
        if handshake.kind == "shutdown" and handshake.state == "awaiting_response" and handshake.overdue
    ]


SANDBOX_TOOL = "SandboxNetworkAccess"
"""The tool name the pinned client gives a sandbox network prompt (``var Sse``): a
sandbox decision's ``tool``, so a prompt for the same host seen through a channel or a
hook is recognised as the same request (its input: ``{"host": ...}``)."""


def sandbox_decisions(files: TeamFiles) -> list[Decision]:
    """The team's open sandbox host requests as decisions (``reason`` is the host)."""
    if files.ledger is None:
        return []
    gates = []
    for handshake in files.ledger.handshakes:
        if handshake.kind != "sandbox" or handshake.state != "awaiting_decision":
            continue
        request = _find_request(files, handshake, SandboxPermissionRequest)
        host = request.hostPattern.host if request is not None else "?"
        gates.append(
            _decision(
                files, handshake, "sandbox", "sandbox-permission", f"{handshake.member}'s sandbox asks to reach {host}",
                tool=SANDBOX_TOOL, reason=host, body=raw_text({"host": host}),
            )
        )  # fmt: skip
    return gates


def _decision(
    files: TeamFiles,
    handshake: Handshake,
    prefix: str,
    kind: str,
    title: str,
    *,
    reason: str = "",
    body: str = "",
    tool: str = "",
) -> Decision:
    """The open decision of one handshake: the fields every team decision shares (its
    key ``<prefix>:<team>:<member>:<request>``, who, since when) and the kind's own."""
    return Decision(
        key=f"{prefix}:{files.name}:{handshake.member}:{handshake.request_id}",
        kind=kind,
        state="blocked",
        created_at=handshake.requested_at,
        source=f"team {files.name}",
        title=title,
        agent=handshake.member,
        team=files.name,
        member=handshake.member,
        request_id=handshake.request_id,
        reason=reason,
        body=body,
        tool=tool,
    )


def _find_request(files: TeamFiles, handshake: Handshake, kind: type[RequestKind]) -> RequestKind | None:
    """The request a handshake is about, from the answerer's inbox."""
    inbox = files.inbox_of(handshake.answerer)
    if not isinstance(inbox, Inbox):
        return None
    for entry in inbox.messages:
        if isinstance(entry.kind, kind) and entry.kind.correlation_id == handshake.request_id:
            return entry.kind
    return None
