"""Receiving one Gitea webhook delivery, exactly once: the function every front calls
(``teamdeck forge serve`` and the tests) once the delivery is known to come from Gitea
(the webhook front checks the signature, and turns each outcome into an HTTP status:
teamdeck/webhook/).

1. The delivery id ``X-Gitea-Delivery``: under the lock of ``forge/deliveries.jsonl``,
   a delivery recorded there (applied, ignored or invalid) is not applied again: a
   redelivery is ``duplicate`` and changes nothing.
2. The body is parsed and the rules run (protocol/forge/rules.py). Then one record is
   appended to deliveries.jsonl: ``applied``, ``ignored`` (an event or action without
   rules), ``invalid`` (not JSON, or not a Gitea payload) or ``failed`` (a file could not
   be written; ``busy`` when the workspace is read-only or locked, worth retrying soon;
   not deduplicated, so Gitea's redelivery tries again, and one-time messages are not
   sent twice). Before the first effect of a valid delivery an ``in-progress`` record is
   appended, and every message it sends is keyed by delivery and recipient (a mention by
   comment id and login), so a redelivery after a crash sends only what was not sent
   (F18).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from teamdeck.clock import iso
from teamdeck.errors import Busy, InvalidFile, ReadOnly, TeamdeckError
from teamdeck.ids import new_ulid
from teamdeck.model.forge import GiteaPayload
from teamdeck.protocol.forge.rules import apply_delivery, handles
from teamdeck.protocol.task.taskfile import validation_message
from teamdeck.store.files import ensure_dir
from teamdeck.store.jsonl import append_record, read_records
from teamdeck.store.loaders import parse_json
from teamdeck.store.locks import locked
from teamdeck.store.paths import InvalidId, shown
from teamdeck.store.workspace import Workspace

log = logging.getLogger(__name__)

FINAL_OUTCOMES = frozenset({"applied", "ignored", "invalid"})
"""Outcomes a redelivery does not change (``failed`` is tried again)."""
DETAIL_CHARS = 500


ACCEPTED = frozenset({"applied", "duplicate", "ignored"})
"""Outcomes that need no redelivery."""


@dataclass(frozen=True)
class Outcome:
    """What receiving a delivery did.

    Attributes:
        outcome: ``applied``, ``duplicate``, ``ignored``, ``invalid``, ``failed``
            (``in-progress`` only in the log, while a delivery is being applied).
        detail: one line about it.
        delivery: the delivery id, when there was one.
        effects: one line per effect of the rules.
        busy: a ``failed`` delivery that could not be written *now* (read-only, a busy
            lock): worth retrying soon.
    """

    outcome: str
    detail: str = ""
    delivery: str | None = None
    effects: tuple[str, ...] = field(default_factory=tuple)
    busy: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.outcome in ACCEPTED,
            "outcome": self.outcome,
            "delivery": self.delivery,
            "detail": self.detail,
            "effects": list(self.effects),
        }


IN_PROGRESS = Outcome("in-progress", "applying; a crash here is finished by Gitea's redelivery")
"""Recorded before a delivery's first effect (not final: a redelivery applies it again)."""


def _header(headers: Mapping[str, str], *names: str) -> str | None:
    lowered = {key.lower(): value for key, value in headers.items()}
    return next((lowered[name.lower()] for name in names if name.lower() in lowered), None)


def event_of(headers: Mapping[str, str]) -> str:
    """The delivery's event name (``X-Gitea-Event``, or Gogs' or GitHub's), or ``""``."""
    return _header(headers, "X-Gitea-Event", "X-Gogs-Event", "X-GitHub-Event") or ""


def delivered(ws: Workspace, delivery: str) -> dict[str, Any] | None:
    """The final record of ``delivery`` in deliveries.jsonl, if there is one."""
    records, _problems = read_records(ws.deliveries_log)
    return next(
        (
            record
            for record in reversed(records)
            if record.get("delivery") == delivery and record.get("outcome") in FINAL_OUTCOMES
        ),
        None,
    )


def receive(ws: Workspace, headers: Mapping[str, str], body: bytes) -> Outcome:
    """Deduplicate, apply and record one delivery whose signature was checked (see the module)."""
    delivery = _header(headers, "X-Gitea-Delivery", "X-Gogs-Delivery", "X-GitHub-Delivery")
    if not delivery or len(delivery) > 100:
        return Outcome("invalid", "no usable X-Gitea-Delivery header; nothing was written")
    event_name = event_of(headers)
    event_type = _header(headers, "X-Gitea-Event-Type", "X-Gogs-Event-Type") or event_name
    try:
        ws.require_writable(f"receive Gitea delivery {shown(delivery)}")
        ensure_dir(ws.forge_dir)
        with locked(ws.deliveries_log, what=str(ws.rel(ws.deliveries_log))):
            seen = delivered(ws, delivery)
            if seen is not None:
                return Outcome("duplicate", f"already {seen.get('outcome')} at {seen.get('receivedAt')}", delivery)
            outcome = _apply(
                ws, event_name, body, delivery, lambda: _record(ws, delivery, event_name, event_type, IN_PROGRESS)
            )
            _record(ws, delivery, event_name, event_type, outcome)
            return Outcome(outcome.outcome, outcome.detail, delivery, outcome.effects)
    except (ReadOnly, Busy) as err:
        return Outcome("failed", str(err), delivery, busy=True)
    except TeamdeckError as err:
        log.warning("forge: delivery %s failed: %s", shown(delivery), err)
        return Outcome("failed", str(err), delivery)


def _apply(ws: Workspace, event_name: str, body: bytes, delivery: str, started: Callable[[], None]) -> Outcome:
    """Parse and apply one delivery; ``started`` is called once it is known to be valid,
    before its first effect."""
    try:  # the safe parser: a body nested 100,000 levels deep is invalid, not a RecursionError (B19)
        raw = parse_json(body, "body", limit=max(len(body), 1))
    except InvalidFile as err:
        return Outcome(
            "invalid", f"the body is not JSON: {err.where + ': ' if err.where else ''}{err.why}"[:DETAIL_CHARS]
        )
    if not isinstance(raw, dict):
        return Outcome("invalid", f"the body is JSON {type(raw).__name__}, not an object")
    found = raw.get("action")
    action = found if isinstance(found, str) else ""
    if not handles(event_name, action):
        return Outcome("ignored", f"no rule for event '{shown(event_name)}' action '{shown(action)}'")
    try:
        payload = GiteaPayload.model_validate(raw)
    except ValidationError as err:
        return Outcome("invalid", f"not a Gitea {shown(event_name)} payload: {validation_message(err)}"[:DETAIL_CHARS])
    try:
        # Recorded before any effect: a crash from here on leaves a trace, and the
        # redelivery skips the messages already sent (they are keyed, F18).
        started()
        effects = apply_delivery(ws, event_name, payload, delivery=delivery)
    except InvalidId as err:  # a repository or number no path may be built from: retrying will not help
        return Outcome("invalid", str(err)[:DETAIL_CHARS])
    except TeamdeckError as err:
        return Outcome("failed", str(err)[:DETAIL_CHARS])
    return Outcome("applied", f"{event_name} {action}", effects=tuple(effects.lines))


def _record(ws: Workspace, delivery: str, event_name: str, event_type: str, outcome: Outcome) -> None:
    moment = ws.clock()
    append_record(
        ws.deliveries_log,
        {
            "id": new_ulid(moment),
            "delivery": delivery,
            "event": event_name[:100],
            "type": event_type[:100],
            "receivedAt": iso(moment),
            "outcome": outcome.outcome,
            "detail": outcome.detail[:DETAIL_CHARS],
            "effects": list(outcome.effects),
        },
    )


def read_deliveries(ws: Workspace) -> list[dict[str, Any]]:
    """Every record of forge/deliveries.jsonl, oldest first, without the ``in-progress``
    record of a delivery that went on to be recorded again (one left alone is a
    delivery a crash interrupted; Gitea's redelivery finishes it)."""
    records, _problems = read_records(ws.deliveries_log)
    later: set[str] = set()
    kept = []
    for record in reversed(records):
        delivery = record.get("delivery")
        if record.get("outcome") == "in-progress" and delivery in later:
            continue
        later.add(str(delivery))
        kept.append(record)
    return kept[::-1]
