"""Answering a teammate's ``permission_request`` (seed 004; FORMAT.md "Inbox messages").

A teammate that wants to run a tool its permissions do not allow asks the lead: a
``permission_request`` lands in the lead's inbox. The person answers as the lead, and
the answer goes to the requester as Claude Code's ``permission_response``:

- allow: ``{"request_id", "subtype": "success", "response": {"updated_input": <the
  request's input, unchanged>, "permission_updates": []}}``;
- deny: ``{"request_id", "subtype": "error", "error": <the note, or "Permission denied">}``.

It is sent through the same logged, locked, delivery-confirmed writer as every other
message (protocol/messaging/sending.py), the note is kept in the messages.jsonl record, and the
request is then marked read in the lead's inbox (a person has seen it). A request that
is answered or superseded (ledger) cannot be answered again.
"""

from __future__ import annotations

from typing import Any

from teamdeck.errors import NotFound, Refused
from teamdeck.model.claude import PermissionRequest, PermissionResponse
from teamdeck.protocol.ledger.build import build_ledger
from teamdeck.protocol.messaging.names import resolve_member
from teamdeck.protocol.messaging.sending import Sent, send_structured
from teamdeck.protocol.observed import Observed
from teamdeck.store.inbox import mark_read, same_message
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace

DENIED = "Permission denied"
"""The error Claude Code writes when a request is denied without a message."""


def answer_permission(
    ws: Workspace,
    team: str,
    member: str,
    request_id: str,
    *,
    approve: bool,
    note: str | None = None,
) -> Sent:
    """Allow or deny ``member``'s permission request ``request_id``.

    Args:
        ws: the workspace.
        team: the team.
        member: the teammate that asked (``name``, ``NAME``, ``name@team``).
        request_id: the request's ``request_id``.
        approve: allow (the tool runs with its input unchanged) or deny.
        note: a denial's message to the teammate; with an approval it is only logged.

    Returns:
        What was sent (the ``permission_response`` to ``member``).

    Raises:
        ReadOnly, NotFound (team, member, or no such request from the member): nothing
            was written.
        Refused: the request was already answered or is superseded: nothing was written.
        WriteFailed, Busy: logged, not delivered.
    """
    ws.require_writable(f"answer a permission request in team '{team}'")
    ledger = build_ledger(ws, team)
    requester = resolve_member(ledger.config, team, member, role="member")
    handshake = next(
        (
            found
            for found in ledger.handshakes
            if found.kind == "permission"
            and found.request_id == request_id
            and found.requester.lower() == requester.lower()
        ),
        None,
    )
    if handshake is None:
        raise NotFound(f"No permission_request '{shown(request_id)}' from '{requester}' in team '{team}'")
    if not handshake.is_open:
        raise Refused(
            f"Could not answer permission request {shown(request_id)}: it is {handshake.state} "
            f"({handshake.detail}); nothing was written"
        )
    inbox_path = ws.inbox(team, handshake.answerer)
    entry = next(
        (
            entry
            for entry in Observed(ws, team).read(inbox_path).messages
            if isinstance(entry.kind, PermissionRequest) and entry.kind.request_id == request_id
        ),
        None,
    )
    if entry is None or not isinstance(entry.kind, PermissionRequest):  # removed since the ledger read it
        raise NotFound(f"No permission_request '{shown(request_id)}' in {ws.rel(inbox_path)} any more")
    fields: dict[str, Any] = {"request_id": request_id}
    if approve:
        fields.update(subtype="success", response={"updated_input": entry.kind.input, "permission_updates": []})
    else:
        fields.update(subtype="error", error=(note or "").strip() or DENIED)
    sent = send_structured(
        ws,
        team,
        requester,
        PermissionResponse(**fields),
        sender=handshake.answerer,
        record_type="permission_response",
        reason=(note or "").strip() or None,
    )
    mark_read(inbox_path, lambda raw: same_message(raw, entry.raw))
    return sent
