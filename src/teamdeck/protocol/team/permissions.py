"""Answering a teammate's ``permission_request`` (seed 004; FORMAT.md "Inbox messages").

A teammate that wants to run a tool its permissions do not allow asks the lead: a
``permission_request`` lands in the lead's inbox. The person answers as the lead, and
the answer goes to the requester as Claude Code's ``permission_response``:

- allow: ``{"request_id", "subtype": "success", "response": {"updated_input": <the
  request's input, unchanged>, "permission_updates": []}}``;
- deny: ``{"request_id", "subtype": "error", "error": <the note, or "Permission denied">}``.

It is sent through the same logged, locked, delivery-confirmed writer as every other
message (protocol/team/messaging/sending.py), the note is kept in the messages.jsonl record, and the
request is then marked read in the lead's inbox (a person has seen it). A request that
is answered or superseded (ledger) cannot be answered again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from teamdeck.errors import NotFound, Refused
from teamdeck.formats.inboxes import InboxEntry, same_message
from teamdeck.formats.registry import team_format
from teamdeck.model.team import PermissionRequest, PermissionResponse, SandboxPermissionRequest
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.messaging.sending import Sent, send_structured
from teamdeck.protocol.team.observed import Observed
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace

DENIED = "Permission denied"
"""The error Claude Code writes when a request is denied without a message."""


_Request = TypeVar("_Request", PermissionRequest, SandboxPermissionRequest)


@dataclass(frozen=True)
class OpenRequest(Generic[_Request]):
    """A request from a teammate that is still open in the ledger, as it is in the
    answerer's inbox now: who asked, who answers, the inbox and the entry."""

    requester: str
    answerer: str
    inbox_path: Path
    entry: InboxEntry
    kind: _Request


def open_request(
    ws: Workspace, team: str, member: str, request_id: str, handshake_kind: str, frame: type[_Request]
) -> OpenRequest[_Request]:
    """The open request ``request_id`` of ``member`` (a handshake of ``handshake_kind``
    whose request is a ``frame``), to be answered.

    Raises:
        NotFound: no such team, member, or request from the member (any more).
        Refused: the request was already answered or is superseded.
    """
    ledger = build_ledger(ws, team)
    requester = resolve_member(ledger.config, team, member, role="member")
    what = frame.KIND
    handshake = next(
        (
            found
            for found in ledger.handshakes
            if found.kind == handshake_kind
            and found.request_id == request_id
            and found.requester.lower() == requester.lower()
        ),
        None,
    )
    if handshake is None:
        raise NotFound(f"No {what} '{shown(request_id)}' from '{requester}' in team '{team}'")
    if not handshake.is_open:
        raise Refused(
            f"Could not answer {what.replace('_', ' ')} {shown(request_id)}: it is {handshake.state} "
            f"({handshake.detail}); nothing was written"
        )
    files = team_format(ws, team)
    inbox_path = files.inbox(ws, team, handshake.answerer)
    for entry in Observed(ws, team).read(inbox_path).messages:
        if isinstance(entry.kind, frame) and entry.kind.correlation_id == request_id:
            return OpenRequest(requester, handshake.answerer, inbox_path, entry, entry.kind)
    raise NotFound(f"No {what} '{shown(request_id)}' in {ws.rel(inbox_path)} any more")  # removed since


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
    found = open_request(ws, team, member, request_id, "permission", PermissionRequest)
    entry, kind = found.entry, found.kind
    fields: dict[str, Any] = {"request_id": request_id}
    if approve:
        fields.update(subtype="success", response={"updated_input": kind.input, "permission_updates": []})
    else:
        fields.update(subtype="error", error=(note or "").strip() or DENIED)
    sent = send_structured(
        ws,
        team,
        found.requester,
        PermissionResponse(**fields),
        sender=found.answerer,
        record_type="permission_response",
        reason=(note or "").strip() or None,
    )
    team_format(ws, team).mark_read(found.inbox_path, lambda raw: same_message(raw, entry.raw))
    return sent
