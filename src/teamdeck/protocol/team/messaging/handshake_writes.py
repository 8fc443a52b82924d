"""The shutdown and plan-approval handshakes (seed 004 §5-§6), and taking a member
offline: asking a teammate to shut down, its answer (on approval the member is marked
inactive in config.json), the lead's answer to a plan, and marking inactive by hand a
member whose shutdown is stuck. Each answer goes out through sending.py, checked first
so that a refused one writes nothing."""

from __future__ import annotations

from typing import Any

from teamdeck.clock import iso
from teamdeck.errors import NotFound, Refused, TeamdeckError
from teamdeck.formats.inboxes import Inbox, InboxEntry, same_message
from teamdeck.formats.registry import team_format
from teamdeck.model.team import (
    Kind,
    Member,
    PlanApprovalRequest,
    PlanApprovalResponse,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownRequest,
    TeamConfig,
)
from teamdeck.protocol.team.allowed import NOT_APPROVED, why_not_deactivate, why_not_shutdown
from teamdeck.protocol.team.inboxes import read_inbox, read_inboxes
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.messaging.sending import Sent, send_kind
from teamdeck.protocol.team.teamlog import log, new_record
from teamdeck.protocol.team.teams import epoch_ms, read_team
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace


def _member(config: TeamConfig, name: str) -> Member:
    """The member ``name`` that :func:`resolve_member` has already found on the roster."""
    member = config.member(name)
    assert member is not None, f"{name} was resolved against this roster"
    return member


def _sender(entry: InboxEntry) -> str:
    """Who sent a decoded inbox message (``Inbox.messages`` holds only those)."""
    assert entry.message is not None, "Inbox.messages holds decoded messages only"
    return entry.message.from_


def _request_id(entry: InboxEntry) -> str | None:
    """The request id a decoded inbox message carries, if any."""
    assert entry.kind is not None, "Inbox.messages holds decoded messages only"
    return entry.kind.correlation_id


# --- shutdown handshake -----------------------------------------------------------


def _find_request(ws: Workspace, team: str, kind: type[Kind], request_id: str) -> tuple[str, InboxEntry] | None:
    """The inbox (recipient) and entry holding the request of ``kind`` with ``request_id``."""
    for recipient, entry in read_inboxes(ws, team).entries():
        if isinstance(entry.kind, kind) and entry.kind.correlation_id == request_id:
            return recipient, entry
    return None


def _replies(inbox: Inbox, kinds: tuple[type[Kind], ...], request_id: str) -> list[InboxEntry]:
    return [
        entry for entry in inbox.messages if isinstance(entry.kind, kinds) and entry.kind.correlation_id == request_id
    ]


def request_shutdown(
    ws: Workspace,
    team: str,
    member: str,
    *,
    reason: str | None = None,
    sender: str | None = None,
    superseding: bool = False,
) -> Sent:
    """Ask a teammate to shut down: a ``shutdown_request`` with a requestId in the team
    format's form (Claude Code's ``shutdown-<epochMs>@<member>``, Ripperdoc's
    ``req_<10 hex>``; the id is in the result).

    Args:
        superseding: a request awaiting its reply is being replaced
            (protocol/team/shutdown_resend.py); otherwise one waiting refuses a second.

    Raises:
        ReadOnly, NotFound: nothing was written.
        Refused: the target is the lead, the sender is not the lead (no member asks on
            another's behalf), the member is already inactive, or a request to it is
            still awaiting its reply: nothing was written.
    """
    ws.require_writable(f"request a shutdown in team '{team}'")
    config = read_team(ws, team)
    source = resolve_member(config, team, sender or config.lead_name, role="sender")
    target = resolve_member(config, team, member, role="member")
    if config.is_lead(target):
        raise Refused(
            f"Could not request shutdown of '{target}': it is the team lead, which is never shut down "
            f"by request (delete the team once its members are offline); nothing was written"
        )
    if not config.is_lead(source):
        raise Refused(
            f"Could not request shutdown of '{target}': only the team lead may; '{source}' cannot ask "
            "on another's behalf; nothing was written"
        )
    why = why_not_shutdown(lead=False, active=_member(config, target).isActive)
    if why is not None:
        raise Refused(f"Could not request shutdown of '{target}': {why}; nothing was written")
    if not superseding:
        _refuse_while_waiting(ws, team, target)
    stamp = epoch_ms(ws)
    taken = {
        entry.kind.correlation_id
        for entry in read_inbox(ws, team, target).messages
        if isinstance(entry.kind, ShutdownRequest)
    }
    new_id = team_format(ws, team).shutdown_request_id
    request_id = new_id(target, stamp)
    while request_id in taken:
        stamp += 1  # two requests in one millisecond (or under a fixed clock) stay distinct
        request_id = new_id(target, stamp)
    fields: dict[str, Any] = {"requestId": request_id, "from": source}
    if reason:
        fields["reason"] = reason
    fields["timestamp"] = iso(ws.clock())
    return send_kind(ws, team, config, source, target, ShutdownRequest(**fields), "shutdown_request")


def _refuse_while_waiting(ws: Workspace, team: str, target: str) -> None:
    """Refuse a second request while one to ``target`` awaits its reply: the member
    would get two, and answering one would leave the other open for good."""
    from teamdeck.protocol.team.ledger.build import build_ledger  # the whole team's inboxes: only here

    waiting = [
        handshake
        for handshake in build_ledger(ws, team).handshakes
        if handshake.kind == "shutdown"
        and handshake.state == "awaiting_response"
        and handshake.member.lower() == target.lower()
    ]
    if waiting:
        raise Refused(
            f"Could not request shutdown of '{target}': request {waiting[-1].request_id} is still awaiting its "
            f"reply; ask again under a new id with `teamdeck shutdown {team} {target} --resend`; nothing was written"
        )


def respond_shutdown(
    ws: Workspace,
    team: str,
    request_id: str,
    *,
    approve: bool,
    sender: str,
    reason: str | None = None,
    to: str | None = None,
) -> Sent:
    """Answer a shutdown request as the member it was sent to: writes
    ``shutdown_approved`` or ``shutdown_rejected`` to the requester, as Claude Code does
    for a ``shutdown_response``. On approval the member is then marked inactive in
    config.json (what Claude Code's lead does on receiving the approval; the agent
    exits), and that is logged.

    Args:
        ws: the workspace.
        team: the team.
        request_id: the ``requestId`` of the shutdown request.
        approve: approve (shut down) or reject.
        sender: the member answering (must be the one the request was sent to).
        reason: why, required to reject.
        to: the recipient as given (must be the requester; default: the requester).

    Raises:
        ReadOnly, NotFound (no such request): nothing was written.
        Refused: the request was sent to someone else (no answering on another's
            behalf), it was already answered, ``to`` is not the requester, or a
            rejection has no reason: nothing was written.
    """
    ws.require_writable(f"answer a shutdown request in team '{team}'")
    config = read_team(ws, team)
    source = resolve_member(config, team, sender, role="sender")
    found = _find_request(ws, team, ShutdownRequest, request_id)
    if found is None:
        raise NotFound(f"No shutdown_request '{shown(request_id)}' in team '{team}'")
    addressee, request = found
    if addressee.lower() != source.lower():
        raise Refused(
            f"Could not answer shutdown request {request_id}: it was sent to '{addressee}', not "
            f"'{source}'; a member cannot answer on another's behalf; nothing was written"
        )
    assert isinstance(request.kind, ShutdownRequest)  # what _find_request looked for
    requester = resolve_member(config, team, request.kind.from_ or _sender(request))
    if to is not None and resolve_member(config, team, to).lower() != requester.lower():
        raise Refused(
            f"Could not answer shutdown request {request_id}: the answer goes to the requester "
            f"'{requester}'; nothing was written"
        )
    earlier = _replies(read_inbox(ws, team, requester), (ShutdownApproved, ShutdownRejected), request_id)
    if earlier:
        kind, message = earlier[-1].kind, earlier[-1].message
        assert kind is not None and message is not None  # _replies keeps decoded messages only
        raise Refused(
            f"Could not answer shutdown request {request_id}: already answered ({kind.KIND} at "
            f"{message.timestamp}); nothing was written"
        )
    if not approve and not (reason or "").strip():
        raise Refused(f"Could not reject shutdown request {request_id}: a reason is required; nothing was written")
    timestamp = iso(ws.clock())
    if approve:
        member = config.member(source)
        fields: dict[str, Any] = {"requestId": request_id, "from": source, "timestamp": timestamp}
        if member is not None and member.tmuxPaneId is not None:
            fields["paneId"] = member.tmuxPaneId
        if member is not None and member.backendType is not None:
            fields["backendType"] = member.backendType
        sent = send_kind(ws, team, config, source, requester, ShutdownApproved(**fields), "shutdown_approved")
        try:
            _set_inactive(ws, team, source, reason=f"approved shutdown {request_id}")
        except TeamdeckError as err:  # the approval is delivered; say what is left to do
            return sent._replace(
                warnings=(
                    *sent.warnings,
                    f"the approval was delivered but '{source}' could not be "
                    f"marked inactive ({err}); run `teamdeck member deactivate {team} {source}`",
                ),
            )
        return sent
    kind = ShutdownRejected(requestId=request_id, from_=source, reason=reason, timestamp=timestamp)
    return send_kind(ws, team, config, source, requester, kind, "shutdown_rejected")


# --- plan approval ----------------------------------------------------------------


def answer_plan(
    ws: Workspace,
    team: str,
    member: str,
    *,
    approve: bool,
    feedback: str | None = None,
    request_id: str | None = None,
    sender: str | None = None,
) -> Sent:
    """Answer a teammate's ``plan_approval_request`` with a ``plan_approval_response``,
    and mark the request read in the lead's inbox (the human has now seen it).

    Args:
        ws: the workspace.
        team: the team.
        member: the teammate whose plan it is.
        approve: approve or reject.
        feedback: required to reject; sent with an approval too if given.
        request_id: which request (default: the member's latest unanswered one).
        sender: who answers (default and only allowed: the lead).

    Raises:
        ReadOnly, NotFound (no such request / none unanswered): nothing was written.
        Refused: the sender is not the lead, the request was already answered, or a
            rejection has no feedback: nothing was written.
    """
    ws.require_writable(f"answer a plan in team '{team}'")
    config = read_team(ws, team)
    source = resolve_member(config, team, sender or config.lead_name, role="sender")
    target = resolve_member(config, team, member, role="member")
    if not config.is_lead(source):
        raise Refused(
            f"Could not answer the plan of '{target}': only the team lead answers plan approval "
            f"requests, not '{source}'; nothing was written"
        )
    requests = [
        entry
        for entry in read_inbox(ws, team, source).messages
        if isinstance(entry.kind, PlanApprovalRequest) and _sender(entry).lower() == target.lower()
    ]
    answered = {
        entry.kind.correlation_id
        for entry in read_inbox(ws, team, target).messages
        if isinstance(entry.kind, PlanApprovalResponse)
    }
    chosen: InboxEntry | None
    if request_id is None:
        open_requests = [entry for entry in requests if _request_id(entry) not in answered]
        if not open_requests:
            raise NotFound(f"No unanswered plan_approval_request from '{target}' in team '{team}'")
        chosen = open_requests[-1]
    else:
        chosen = next((entry for entry in requests if _request_id(entry) == request_id), None)
        if chosen is None:
            raise NotFound(f"No plan_approval_request '{shown(request_id)}' from '{target}' in team '{team}'")
        if request_id in answered:
            raise Refused(f"Could not answer plan request {request_id}: already answered; nothing was written")
    if not approve and not (feedback or "").strip():
        raise Refused(f"Could not reject the plan of '{target}': feedback is required to reject; nothing was written")
    fields: dict[str, Any] = {"requestId": _request_id(chosen), "approved": approve}
    if feedback:
        fields["feedback"] = feedback
    fields["timestamp"] = iso(ws.clock())
    sent = send_kind(ws, team, config, source, target, PlanApprovalResponse(**fields), "plan_approval_response")
    files = team_format(ws, team)
    files.mark_read(files.inbox(ws, team, source), lambda raw: same_message(raw, chosen.raw))
    return sent


# --- roster: going offline --------------------------------------------------------


def _set_inactive(ws: Workspace, team: str, member: str, *, reason: str) -> bool:
    """Set ``isActive: false`` on ``member`` under config.json's lock and log it.

    Returns:
        False when the member was already inactive or is gone (nothing written).
    """

    def change(raw: dict[str, Any]) -> tuple[bool, bool]:
        for entry in raw.get("members", []):
            if isinstance(entry, dict) and str(entry.get("name", "")).lower() == member.lower():
                if entry.get("isActive") is False:
                    return False, False
                entry["isActive"] = False
                return True, True
        return False, False

    changed = team_format(ws, team).change_roster(ws, team, change)
    if changed:
        log(ws, team, new_record(ws, "member_deactivated", member=member, reason=reason))
    return changed


def deactivate_member(ws: Workspace, team: str, member: str, *, force: bool = False, reason: str | None = None) -> str:
    """Mark a member inactive in config.json (under the lock), logged in messages.jsonl.

    For the known Claude Code failure where a member approved its shutdown but stays
    active and so blocks TeamDelete. Without ``force`` it is refused unless the member
    has an approved shutdown on record.

    Returns:
        The member's canonical name.

    Raises:
        ReadOnly, NotFound: nothing was written.
        Refused: the member is the lead, already inactive, or (without ``force``) has
            not approved a shutdown.
    """
    ws.require_writable(f"deactivate a member of team '{team}'")
    config = read_team(ws, team)
    target = resolve_member(config, team, member, role="member")
    approvals = [
        entry.kind.correlation_id
        for _recipient, entry in read_inboxes(ws, team).entries()
        if isinstance(entry.kind, ShutdownApproved) and _sender(entry).lower() == target.lower()
    ]
    why_not = why_not_deactivate(
        lead=config.is_lead(target),
        active=_member(config, target).isActive,
        approved_shutdown=bool(approvals),
        force=force,
    )
    if why_not == NOT_APPROVED:
        why_not += f". Ask first with `teamdeck shutdown {team} {target}`, or use --force if it is gone for good"
    if why_not is not None:
        raise Refused(f"Could not deactivate '{target}': {why_not}; nothing was written")
    why = reason or (f"approved shutdown {approvals[-1]} but stayed active" if approvals else "forced by hand")
    _set_inactive(ws, team, target, reason=why)
    return target
