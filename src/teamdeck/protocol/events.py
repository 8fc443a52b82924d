"""Making events: ids, timestamps, actors."""

from __future__ import annotations

from typing import Any

from ulid import ULID

from teamdeck.clock import iso
from teamdeck.model.event import Event
from teamdeck.store.workspace import Workspace


def new_event(ws: Workspace, type_: str, payload: dict[str, Any], *, actor: str | None = None) -> Event:
    """A new event stamped with the workspace clock and a fresh ULID.

    The ULID's time part comes from the same clock, so ids sort like timestamps even
    under an injected clock.
    """
    moment = ws.clock()
    return Event(
        id=str(ULID.from_datetime(moment)), ts=iso(moment), type=type_, actor=actor or ws.actor, payload=payload
    )
