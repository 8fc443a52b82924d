"""Resending a shutdown request that got no reply (a stuck shutdown, seed 004 §6).

A teammate that never answers its ``shutdown_request`` (it crashed, or its turn ended
without seeing the request) blocks TeamDelete. The person has two ways out: ask again
under a new ``requestId`` (here), or force the member offline with the guarded
:func:`teamdeck.protocol.team.messaging.handshake_writes.deactivate_member` (``force`` and a reason).

Resending sends a new request through :func:`request_shutdown` and then records every
request it replaces as a ``shutdown_superseded`` note in messages.jsonl (``requestId``:
the old id, ``ref``: the new request's record), so the ledger closes the old handshake
instead of reporting it forever.
"""

from __future__ import annotations

from dataclasses import dataclass

from teamdeck.errors import Refused
from teamdeck.model.team import ShutdownRequest
from teamdeck.protocol.team.inboxes import read_inbox
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.messaging.sending import Sent
from teamdeck.protocol.team.teamlog import log, new_record
from teamdeck.store.workspace import Workspace


@dataclass(frozen=True)
class Resent:
    """What a resend did: the new request, and the ids it superseded (oldest first)."""

    sent: Sent
    superseded: tuple[str, ...]


def resend_shutdown(ws: Workspace, team: str, member: str, *, reason: str | None = None) -> Resent:
    """Ask ``member`` to shut down again, superseding its unanswered request(s).

    Args:
        ws: the workspace.
        team: the team.
        member: the teammate.
        reason: the new request's reason (default: the newest old request's).

    Raises:
        ReadOnly, NotFound: nothing was written.
        Refused: the member has no shutdown request awaiting a reply, or it is the lead
            or inactive (as :func:`request_shutdown`): nothing was written.
        WriteFailed, Busy: as :func:`request_shutdown`; a failure writing a
            ``shutdown_superseded`` note leaves the new request sent.
    """
    ws.require_writable(f"resend a shutdown request in team '{team}'")
    ledger = build_ledger(ws, team)
    target = resolve_member(ledger.config, team, member, role="member")
    waiting = [
        handshake.request_id
        for handshake in ledger.handshakes
        if handshake.kind == "shutdown"
        and handshake.state == "awaiting_response"
        and handshake.member.lower() == target.lower()
    ]
    if not waiting:
        raise Refused(
            f"Could not resend a shutdown request to '{target}': none is awaiting a reply; "
            f"ask with `teamdeck shutdown {team} {target}`; nothing was written"
        )
    if reason is None:
        reasons = [
            entry.kind.reason
            for entry in read_inbox(ws, team, target).messages
            if isinstance(entry.kind, ShutdownRequest) and entry.kind.requestId in waiting
        ]
        reason = reasons[-1] if reasons else None
    sent = request_shutdown(ws, team, target, reason=reason, superseding=True)
    for old in waiting:
        log(
            ws,
            team,
            new_record(
                ws,
                "shutdown_superseded",
                member=target,
                requestId=old,
                ref=sent.id,
                reason=f"resent as {sent.request_id}",
            ),
        )
    return Resent(sent, tuple(waiting))
