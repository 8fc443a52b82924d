"""Making events: ids, timestamps, actors."""

from __future__ import annotations

from typing import Any

from teamdeck.clock import iso
from teamdeck.ids import new_ulid
from teamdeck.model.event import Event
from teamdeck.store.workspace import Workspace


def new_event(ws: Workspace, type_: str, payload: dict[str, Any], *, actor: str | None = None) -> Event:
    """A new event stamped with the workspace clock and a fresh ULID.

    The ULID's time part comes from the same clock, so ids sort like timestamps even
    under an injected clock.
    """
    moment = ws.clock()
    return Event(id=new_ulid(moment), ts=iso(moment), type=type_, actor=actor or ws.actor, payload=payload)
