"""Deliveries to Gitea that failed (protocol/forge/outbox.py), as decisions: each waits
in the queue until a person retries or drops it."""

from __future__ import annotations

from teamdeck.errors import TeamdeckError
from teamdeck.protocol.forge.outbox import read_outbox
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.workspace import Decision


def failed_deliveries(ws: Workspace) -> tuple[Decision, ...]:
    """One ``forge-delivery`` decision per failed entry of forge/outbox.jsonl."""
    try:
        entries = read_outbox(ws)
    except TeamdeckError:
        return ()  # an unreadable outbox is reported by ``teamdeck validate``
    return tuple(
        Decision(
            key=f"forge:{entry.id}",
            kind="forge-delivery",
            state="blocked",
            created_at=entry.failed_at or entry.at,
            source=f"forge {entry.ref}",
            title=f"Gitea was not updated: {entry.why}",
            reason=entry.error,
            body=entry.comment,
            request_id=entry.id,
        )
        for entry in entries
        if entry.state == "failed"
    )
