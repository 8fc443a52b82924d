"""Sending: plain messages, broadcasts and structured protocol messages to a team's
members (seed 004 §4); the handshakes (handshake_writes.py) build on :func:`send_kind`.

Every send is checked completely before anything is written (a refused send writes
nothing), then logged first in ``teams/<team>/messages.jsonl`` and only then appended
to each recipient's inbox with Claude Code's locking writer, which confirms the entry by
re-reading it (R4, C10). A delivery that fails is noted in the log against the send's
id, so the ledger can report it as "not enqueued".

The person at the keyboard acts with the lead's authority: ``sender`` defaults to the
team lead. Recipients are resolved by names.py.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from teamdeck.clock import iso
from teamdeck.errors import Refused, TeamdeckError, WriteFailed
from teamdeck.formats.inboxes import Delivery
from teamdeck.formats.registry import log_file, team_format
from teamdeck.model.team import Kind, TeamConfig, decode_text, is_structured
from teamdeck.model.team_log import LogType, TeamLogRecord
from teamdeck.protocol.common.intents import intent
from teamdeck.protocol.team.keyed_sends import inbox_entry, logged_with_key, redeliver
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.observed import record_delivered
from teamdeck.protocol.team.teamlog import log, new_record
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.workspace import Workspace


class Sent(NamedTuple):
    """What a send did (a NamedTuple, not a dataclass: importing ``dataclasses`` would
    cost every ``send`` ~8 ms).

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


def _inactive_warning(config: TeamConfig, recipients: list[str]) -> tuple[str, ...]:
    return tuple(
        f"'{name}' is inactive (shut down); the message waits in its inbox until it is started again"
        for name in recipients
        if (member := config.member(name)) is not None and not member.isActive
    )


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
    ``send`` intent (protocol/common/intents.py) so a crash in between is finished later.

    With a ``key`` already logged, nothing new is sent: the earlier send is finished
    (protocol/team/keyed_sends.py) and returned."""
    if key is not None:
        earlier = logged_with_key(ws, team, key)
        if earlier is not None:
            redeliver(ws, team, earlier)
            return _sent(earlier, team, config, tuple(earlier.to or ()), ())
        record = record.replaced(key=key)
    with intent(ws, "send", team=team, record=record.id):
        log(ws, team, record)
        deliveries: list[Delivery] = []
        files = team_format(ws, team)
        for recipient in recipients:
            try:
                delivery = files.append_message(files.inbox(ws, team, recipient), entry)
            except TeamdeckError as err:
                _note(ws, team, "delivery_failed", ref=record.id, to=[recipient], error=str(err))
                done = ", ".join(files.recipient_of(d.path) for d in deliveries) or "none"
                raise WriteFailed(
                    f"Could not deliver to '{recipient}': {err}. The send is logged in "
                    f"{ws.rel(log_file(ws, team))} as {record.id}; delivered so far: {done}"
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
        key: makes the send happen once (see protocol/team/keyed_sends.py).

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
    (once per ``key``, see protocol/team/keyed_sends.py).

    Simulators use this for kinds a teammate sends (idle notifications, plan approval
    requests); the handshakes (handshake_writes.py) go through :func:`send_kind` after their
    own checks. ``reason`` goes into the log record only (a person's note the wire
    format has no field for).

    Raises:
        ReadOnly, NotFound: nothing was written.
        WriteFailed, Busy: logged, not delivered.
    """
    ws.require_writable(f"send a {kind.KIND} in team '{team}'")
    config = read_team(ws, team)
    source = resolve_member(config, team, sender or config.lead_name, role="sender")
    target = resolve_member(config, team, to)
    return send_kind(ws, team, config, source, target, kind, record_type, reason=reason, key=key)


def send_kind(
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
    """Log ``kind`` as a ``record_type`` record and deliver it from ``source`` to
    ``target``, both names already resolved and every check already passed (the
    handshakes call this after their own checks)."""
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
