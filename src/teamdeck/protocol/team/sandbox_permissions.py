"""Answering a teammate's ``sandbox_permission_request`` (FORMAT.md "Mailbox frames").

A teammate whose sandbox wants to reach a network host its rules do not allow asks the
lead: a ``sandbox_permission_request`` (``requestId``, ``workerName``, ``hostPattern:
{host}``) lands in the lead's inbox. The person answers as the lead, and the answer goes
to the worker exactly as the pinned client's lead writes it (its ``Uji`` builder):
``{"type": "sandbox_permission_response", "requestId", "host", "allow", "timestamp"}``
from the lead, ``host`` the request's own. There is no field for a reason: a note is
kept in the messages.jsonl record only.

Claude Code 2.1.332 accepts the answer only from the lead's own process (a tmux
teammate checks ``lead_sig``, which teamdeck cannot make) and treats an unverified one
as a denial: FORMAT.md says so; the answer is still the record of the person's
decision. The request is then marked read in the lead's inbox (a person has seen it).
An answered or superseded request cannot be answered again.
"""

from __future__ import annotations

from teamdeck.clock import iso
from teamdeck.formats.inboxes import same_message
from teamdeck.formats.registry import team_format
from teamdeck.model.team import SandboxPermissionRequest, SandboxPermissionResponse
from teamdeck.protocol.team.messaging.sending import Sent, send_structured
from teamdeck.protocol.team.permissions import open_request
from teamdeck.store.workspace import Workspace


def answer_sandbox_permission(
    ws: Workspace,
    team: str,
    member: str,
    request_id: str,
    *,
    allow: bool,
    note: str | None = None,
) -> Sent:
    """Allow or deny ``member``'s sandbox request ``request_id`` to reach its host.

    Args:
        ws: the workspace.
        team: the team.
        member: the teammate that asked (``name``, ``NAME``, ``name@team``).
        request_id: the request's ``requestId``.
        allow: let the sandbox reach the host, or not.
        note: why; logged in messages.jsonl (the frame has no field for it).

    Returns:
        What was sent (the ``sandbox_permission_response`` to ``member``).

    Raises:
        ReadOnly, NotFound (team, member, or no such request from the member): nothing
            was written.
        Refused: the request was already answered or is superseded: nothing was written.
        WriteFailed, Busy: logged, not delivered.
    """
    ws.require_writable(f"answer a sandbox permission request in team '{team}'")
    found = open_request(ws, team, member, request_id, "sandbox", SandboxPermissionRequest)
    response = SandboxPermissionResponse(
        requestId=request_id, host=found.kind.hostPattern.host, allow=allow, timestamp=iso(ws.clock())
    )
    sent = send_structured(
        ws, team, found.requester, response, sender=found.answerer, reason=(note or "").strip() or None
    )
    team_format(ws, team).mark_read(found.inbox_path, lambda raw: same_message(raw, found.entry.raw))
    return sent
