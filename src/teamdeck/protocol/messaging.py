"""SendMessage for Claude Code teams: messages, broadcasts, shutdown and plan-approval
handshakes, and injection of unread messages (seed 004 §4-§6).

Every send is checked completely before anything is written (a refused send writes
nothing), then logged first in ``teams/<team>/messages.jsonl`` and only then appended
to each recipient's inbox with Claude Code's locking writer, which confirms the entry by
re-reading it (R4, C10). A delivery that fails is noted in the log against the send's
id, so the ledger can report it as "not enqueued".

The person at the keyboard acts with the lead's authority: ``sender`` defaults to the
team lead. Recipients are resolved case-insensitively, with ``name@team`` accepted and
``team-lead`` always valid; anything else is ``Unknown recipient 'x' in team 't'``.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, replace
from typing import Any

from teamdeck.clock import iso
from teamdeck.errors import NotFound, Refused, TeamdeckError, WriteFailed
from teamdeck.model.claude import (
    Kind,
    Member,
    PlanApprovalRequest,
    PlanApprovalResponse,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownRequest,
    TeamConfig,
    decode_text,
    is_structured,
)
from teamdeck.model.team_log import LogType, TeamLogRecord
from teamdeck.protocol.allowed import NOT_APPROVED, why_not_deactivate, why_not_shutdown
from teamdeck.protocol.inboxes import read_inboxes
from teamdeck.protocol.intents import intent
from teamdeck.protocol.keyed_sends import inbox_entry, logged_with_key, redeliver
from teamdeck.protocol.observed import record_delivered
from teamdeck.protocol.teamlog import log, new_record
from teamdeck.protocol.teams import epoch_ms, read_team
from teamdeck.store.inbox import (
    Delivery,
    Inbox,
    InboxEntry,
    append_message,
    mark_read,
    read_inbox,
    same_message,
    take_unread,
)
from teamdeck.store.paths import shown
from teamdeck.store.teamfiles import transact_config
from teamdeck.store.workspace import Workspace

SHUTDOWN_FIRST = ("shutdown_request",)
"""Kinds injected before all others (seed 004 §5.2)."""


@dataclass(frozen=True)
class Sent:
    """What a send did.

    Attributes:
        id: the ULID of its record in messages.jsonl.
        team: the team.
        type: the record type (``message``, ``broadcast``, ``shutdown_request``...).
        sender: the sender's canonical name.
        recipients: the recipients' canonical names.
        timestamp: the inbox entry's ``timestamp``.
        text: the inbox entry's ``text``.
        summary: the summary, for messages and broadcasts.
        request_id: the handshake id, for shutdown and plan messages.
        deliveries: one per recipient; ``confirmed`` False means "not yet delivered".
        warnings: things the person should know (e.g. the recipient is inactive).
    """

    id: str
    team: str
    type: str
    sender: str
    recipients: tuple[str, ...]
    timestamp: str
    text: str
    summary: str | None = None
    request_id: str | None = None
    deliveries: tuple[Delivery, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def confirmed(self) -> bool:
        """Every recipient's inbox was seen to hold the message after the write."""
        return all(delivery.confirmed for delivery in self.deliveries)

    def to_json(self) -> dict[str, Any]:
        """The result for ``--json`` and the TUI."""
        return {
            "id": self.id,
            "team": self.team,
            "type": self.type,
            "from": self.sender,
            "to": list(self.recipients),
            "timestamp": self.timestamp,
            "summary": self.summary,
            "requestId": self.request_id,
            "confirmed": self.confirmed,
            "unconfirmed": [delivery.path.name for delivery in self.deliveries if not delivery.confirmed],
            "warnings": list(self.warnings),
        }


# --- names ------------------------------------------------------------------------


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


def resolve_member(config: TeamConfig, team: str, name: str, *, role: str = "recipient") -> str:
    """The canonical member name that ``name`` means in ``team``.

    ``name``, ``NAME`` and ``name@team`` match case-insensitively; ``team-lead`` always
    means the lead.

    Raises:
        NotFound: ``Unknown recipient 'x' in team 't'`` (or ``sender``).
    """
    bare = name.strip()
    if "@" in bare:
        bare, _, team_part = bare.rpartition("@")
        if team_part.lower() != team.lower():
            bare = ""
    if bare and config.is_lead(bare):
        return config.lead_name
    member = config.member(bare) if bare else None
    if member is None:
        raise NotFound(f"Unknown {role} '{shown(name)}' in team '{team}'")
    return member.name


def _inactive_warning(config: TeamConfig, recipients: list[str]) -> tuple[str, ...]:
    return tuple(
        f"'{name}' is inactive (shut down); the message waits in its inbox until it is started again"
        for name in recipients
        if (member := config.member(name)) is not None and not member.isActive
    )


# --- sending ----------------------------------------------------------------------


def _note(ws: Workspace, team: str, type_: LogType, **fields: Any) -> None:
    """Log a delivery note; a note that cannot be written must not hide the real error."""
    try:
        log(ws, team, new_record(ws, type_, **fields))
    except TeamdeckError:
        pass


def _deliver(
    ws: Workspace,
    team: str,
    config: TeamConfig,
    record: TeamLogRecord,
    entry: dict[str, Any],
    recipients: list[str],
    key: str | None = None,
) -> Sent:
    """Log ``record`` first, then append ``entry`` to each recipient's inbox, under a
    ``send`` intent (protocol/intents.py) so a crash in between is finished later.

    With a ``key`` already logged, nothing new is sent: the earlier send is finished
    (protocol/keyed_sends.py) and returned."""
    if key is not None:
        earlier = logged_with_key(ws, team, key)
        if earlier is not None:
            redeliver(ws, team, earlier)
            return _sent(earlier, team, config, tuple(earlier.to or ()), ())
        record = record.model_copy(update={"key": key})
    with intent(ws, "send", team=team, record=record.id):
        log(ws, team, record)
        deliveries: list[Delivery] = []
        for recipient in recipients:
            try:
                delivery = append_message(ws.inbox(team, recipient), entry)
            except TeamdeckError as err:
                _note(ws, team, "delivery_failed", ref=record.id, to=[recipient], error=str(err))
                done = ", ".join(d.path.stem for d in deliveries) or "none"
                raise WriteFailed(
                    f"Could not deliver to '{recipient}': {err}. The send is logged in "
                    f"{ws.rel(ws.messages_log(team))} as {record.id}; delivered so far: {done}"
                ) from err
            if delivery.confirmed:  # seen in the inbox: kept even after Claude Code drains it
                record_delivered(ws, team, recipient, entry)
            else:
                _note(ws, team, "delivery_unconfirmed", ref=record.id, to=[recipient])
            deliveries.append(delivery)
    return _sent(record, team, config, tuple(recipients), tuple(deliveries))


def _sent(
    record: TeamLogRecord, team: str, config: TeamConfig, recipients: tuple[str, ...], deliveries: tuple[Delivery, ...]
) -> Sent:
    return Sent(
        record.id,
        team,
        record.type,
        record.from_ or "",
        recipients,
        record.timestamp or "",
        record.text or "",
        summary=record.summary,
        request_id=record.requestId,
        deliveries=deliveries,
        warnings=_inactive_warning(config, list(recipients)),
    )


def _check_plain(text: str, summary: str, what: str) -> None:
    if not summary.strip():
        raise Refused(
            f"Could not {what}: the summary is empty (messages and broadcasts need a non-empty "
            "summary); nothing was written"
        )
    if not text.strip():
        raise Refused(f"Could not {what}: the message text is empty; nothing was written")


def send_message(
    ws: Workspace, team: str, to: str, text: str, *, summary: str, sender: str | None = None, key: str | None = None
) -> Sent:
    """Send a plain message to one member (SendMessage ``type=message``).

    Args:
        ws: the workspace.
        team: the team.
        to: the recipient (``name``, ``NAME``, ``name@team``, ``team-lead``).
        text: the message body.
        summary: a non-empty summary (shown in the recipient's ``teammate-message``).
        sender: who sends it (default: the team lead).
        key: makes the send happen once (see protocol/keyed_sends.py).

    Returns:
        What was sent (for a key already used: what was sent then).

    Raises:
        ReadOnly, NotFound (team, sender or recipient), Refused (empty summary or text,
        or text that is a structured protocol message): nothing was written.
        WriteFailed, Busy: the send is logged but the inbox could not be written.
    """
    ws.require_writable(f"send a message in team '{team}'")
    config = read_team(ws, team)
    source = resolve_member(config, team, sender or config.lead_name, role="sender")
    target = resolve_member(config, team, to)
    _check_plain(text, summary, f"send to '{target}'")
    if is_structured(text):
        raise Refused(
            f"Could not send to '{target}': the text is a structured {decode_text(text).KIND} message; "
            "use `teamdeck shutdown`, `teamdeck send --type shutdown_response` or `teamdeck plan`; "
            "nothing was written"
        )
    timestamp = iso(ws.clock())
    entry = inbox_entry(config, source, text, timestamp, summary)
    record = new_record(ws, "message", from_=source, to=[target], summary=summary, timestamp=timestamp, text=text)
    return _deliver(ws, team, config, record, entry, [target], key)


def broadcast(ws: Workspace, team: str, text: str, *, summary: str, sender: str | None = None) -> Sent:
    """Send a plain message to every member but the sender (SendMessage ``type=broadcast``).

    Raises:
        ReadOnly, NotFound (team or sender), Refused (empty summary or text, a
        structured message, nobody to send to): nothing was written.
        WriteFailed, Busy: the send is logged; the error names who got it so far.
    """
    ws.require_writable(f"broadcast in team '{team}'")
    config = read_team(ws, team)
    source = resolve_member(config, team, sender or config.lead_name, role="sender")
    if is_structured(text):
        raise Refused(
            f"Could not broadcast: structured messages ({decode_text(text).KIND}) cannot be broadcast; "
            "send them to one member; nothing was written"
        )
    _check_plain(text, summary, "broadcast")
    recipients = [member.name for member in config.members if member.name.lower() != source.lower()]
    if not recipients:
        raise Refused(f"Could not broadcast: team '{team}' has no member other than '{source}'; nothing was written")
    timestamp = iso(ws.clock())
    entry = inbox_entry(config, source, text, timestamp, summary)
    record = new_record(ws, "broadcast", from_=source, to=recipients, summary=summary, timestamp=timestamp, text=text)
    return _deliver(ws, team, config, record, entry, recipients)


def send_structured(
    ws: Workspace,
    team: str,
    to: str,
    kind: Kind,
    *,
    sender: str | None = None,
    record_type: LogType = "structured",
    reason: str | None = None,
    key: str | None = None,
) -> Sent:
    """Send a protocol message (its JSON in ``text``) to one member, logged first
    (once per ``key``, see protocol/keyed_sends.py).

    The handshake functions below build on this; simulators may use it for kinds a
    teammate sends (idle notifications, plan approval requests). ``reason`` goes into
    the log record only (a person's note the wire format has no field for).

    Raises:
        ReadOnly, NotFound: nothing was written.
        WriteFailed, Busy: logged, not delivered.
    """
    ws.require_writable(f"send a {kind.KIND} in team '{team}'")
    config = read_team(ws, team)
    source = resolve_member(config, team, sender or config.lead_name, role="sender")
    target = resolve_member(config, team, to)
    return _send_kind(ws, team, config, source, target, kind, record_type, reason=reason, key=key)


def _send_kind(
    ws: Workspace,
    team: str,
    config: TeamConfig,
    source: str,
    target: str,
    kind: Kind,
    record_type: LogType,
    *,
    reason: str | None = None,
    key: str | None = None,
) -> Sent:
    text = kind.to_text()
    timestamp = kind.to_payload().get("timestamp") or iso(ws.clock())
    entry = inbox_entry(config, source, text, timestamp)
    record = new_record(
        ws,
        record_type,
        from_=source,
        to=[target],
        requestId=kind.correlation_id,
        timestamp=timestamp,
        text=text,
        kind=kind.KIND if record_type == "structured" else None,
        reason=reason,
    )
    return _deliver(ws, team, config, record, entry, [target], key)


# --- reading inboxes --------------------------------------------------------------


def list_inbox(ws: Workspace, team: str, member: str, *, unread_only: bool = False) -> list[InboxEntry]:
    """A member's messages in file order, without marking anything read.

    Raises:
        NotFound: no such team or member.
        UnreadableInbox: the inbox is not a JSON array.
    """
    config = read_team(ws, team)
    inbox = read_inbox(ws.inbox(team, resolve_member(config, team, member, role="member")))
    return inbox.unread if unread_only else inbox.messages


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
    ws: Workspace, team: str, member: str, *, reason: str | None = None, sender: str | None = None
) -> Sent:
    """Ask a teammate to shut down: a ``shutdown_request`` with requestId
    ``shutdown-<epochMs>@<member>`` (the id is in the result).

    Raises:
        ReadOnly, NotFound: nothing was written.
        Refused: the target is the lead, the sender is not the lead (no member asks on
            another's behalf), or the member is already inactive: nothing was written.
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
    stamp = epoch_ms(ws)
    taken = {
        entry.kind.correlation_id
        for entry in read_inbox(ws.inbox(team, target)).messages
        if isinstance(entry.kind, ShutdownRequest)
    }
    while f"shutdown-{stamp}@{target}" in taken:
        stamp += 1  # two requests in one millisecond (or under a fixed clock) stay distinct
    fields: dict[str, Any] = {"requestId": f"shutdown-{stamp}@{target}", "from": source}
    if reason:
        fields["reason"] = reason
    fields["timestamp"] = iso(ws.clock())
    return _send_kind(ws, team, config, source, target, ShutdownRequest(**fields), "shutdown_request")


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
    earlier = _replies(read_inbox(ws.inbox(team, requester)), (ShutdownApproved, ShutdownRejected), request_id)
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
        sent = _send_kind(ws, team, config, source, requester, ShutdownApproved(**fields), "shutdown_approved")
        try:
            _set_inactive(ws, team, source, reason=f"approved shutdown {request_id}")
        except TeamdeckError as err:  # the approval is delivered; say what is left to do
            return replace(
                sent,
                warnings=(
                    *sent.warnings,
                    f"the approval was delivered but '{source}' could not be "
                    f"marked inactive ({err}); run `teamdeck member deactivate {team} {source}`",
                ),
            )
        return sent
    kind = ShutdownRejected(requestId=request_id, from_=source, reason=reason, timestamp=timestamp)
    return _send_kind(ws, team, config, source, requester, kind, "shutdown_rejected")


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
        for entry in read_inbox(ws.inbox(team, source)).messages
        if isinstance(entry.kind, PlanApprovalRequest) and _sender(entry).lower() == target.lower()
    ]
    answered = {
        entry.kind.correlation_id
        for entry in read_inbox(ws.inbox(team, target)).messages
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
    sent = _send_kind(ws, team, config, source, target, PlanApprovalResponse(**fields), "plan_approval_response")
    mark_read(ws.inbox(team, source), lambda raw: same_message(raw, chosen.raw))
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

    changed = transact_config(ws, team, change)
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


# --- injection --------------------------------------------------------------------


@dataclass(frozen=True)
class Injected:
    """One message delivered to an agent harness, with its metadata (seed 004 §5.2)."""

    team: str
    sender: str
    recipient: str
    kind: str
    timestamp: str
    text: str
    summary: str | None = None
    color: str | None = None
    request_id: str | None = None

    @property
    def block(self) -> str:
        """The ``<teammate-message ...>body</teammate-message>`` block the agent sees."""
        return format_block(self.sender, self.text, color=self.color, summary=self.summary)

    def to_json(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "from": self.sender,
            "to": self.recipient,
            "type": self.kind,
            "requestId": self.request_id,
            "timestamp": self.timestamp,
            "summary": self.summary,
            "color": self.color,
            "text": self.text,
            "block": self.block,
        }


def format_block(sender: str, text: str, *, color: str | None = None, summary: str | None = None) -> str:
    """A message as Claude Code shows it to an agent; attribute values are escaped."""
    attributes = [f'teammate_id="{html.escape(sender)}"']
    if color:
        attributes.append(f'color="{html.escape(color)}"')
    if summary:
        attributes.append(f'summary="{html.escape(summary)}"')
    return f"<teammate-message {' '.join(attributes)}>\n{text}\n</teammate-message>"


def inject(ws: Workspace, team: str, member: str) -> list[Injected]:
    """Take a member's unread messages for its next turn: marked read in one locked
    write, returned shutdown requests first, then in file order.

    Raises:
        ReadOnly, NotFound: nothing was marked.
        UnreadableInbox, Busy, WriteFailed: nothing was marked.
    """
    ws.require_writable(f"mark messages read in team '{team}'")
    config = read_team(ws, team)
    recipient = resolve_member(config, team, member, role="member")
    taken = take_unread(ws.inbox(team, recipient))
    injected = []
    for raw in taken:
        text = raw["text"] if isinstance(raw.get("text"), str) else ""
        kind = decode_text(text)
        injected.append(
            Injected(
                team,
                str(raw.get("from", "")),
                recipient,
                kind.KIND,
                str(raw.get("timestamp", "")),
                text,
                summary=raw.get("summary"),
                color=raw.get("color"),
                request_id=kind.correlation_id,
            )
        )
    return sorted(injected, key=lambda item: item.kind not in SHUTDOWN_FIRST)
