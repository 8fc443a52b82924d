"""Delivering ``forge/outbox.jsonl`` to Gitea (protocol/forge/outbox.py says what is in it).

Each pending entry is tried a few times (``tries``, a short pause between): its comment
is posted, then the issue's assignees set and the issue closed when the entry says so;
every try is recorded. An entry
whose tries all fail is given up (``failed``): it waits in the decision queue, where a
person retries or drops it. Delivering holds the outbox's delivery lock, so two fronts
delivering at once do not post a comment twice.
"""

from __future__ import annotations

import logging
import time

from teamdeck.errors import TeamdeckError
from teamdeck.protocol.forge.outbox import ForgePoster, OutboxEntry, Step, give_up, outbox_path, pending, record_attempt
from teamdeck.store.locks import locked
from teamdeck.store.workspace import Workspace

log = logging.getLogger(__name__)

TRIES = 3
PAUSE_S = 0.5
"""The pause after the first failed try (doubled after each)."""


def deliver_outbox(ws: Workspace, poster: ForgePoster, *, tries: int = TRIES, pause_s: float = PAUSE_S) -> list[str]:
    """Deliver every pending entry through ``poster``; returns one line per entry."""
    if not pending(ws):
        return []
    lock = outbox_path(ws).with_name("outbox-delivery")
    with locked(lock, what="the forge outbox delivery"):
        return [_deliver(ws, poster, entry, tries, pause_s) for entry in pending(ws)]


def _deliver(ws: Workspace, poster: ForgePoster, entry: OutboxEntry, tries: int, pause_s: float) -> str:
    """Post the comment (unless a try before did), then set the assignees and close the
    issue if asked."""
    steps: list[Step] = [] if entry.commented else ["comment"]
    if entry.assignees is not None and not entry.assigned:
        steps.append("assign")
    if entry.close:
        steps.append("close")
    for step in steps:
        error = _try(ws, poster, entry, step, tries, pause_s)
        if error:
            give_up(ws, entry)
            log.warning("forge: %s: %s", entry.ref, error)
            return f"Gitea was not updated ({entry.ref}): {error}; it waits in the decision queue (retry or drop)"
    then = (f", assigned it to {', '.join(entry.assignees)}" if entry.assignees is not None else "") + (
        " and closed it" if entry.close else ""
    )
    return f"posted the outcome on {entry.ref}{then}"


def _try(ws: Workspace, poster: ForgePoster, entry: OutboxEntry, step: Step, tries: int, pause_s: float) -> str:
    """Try ``step`` up to ``tries`` times; "" once it worked, else the last error."""
    error = ""
    for attempt in range(tries):
        if attempt:
            time.sleep(pause_s * 2 ** (attempt - 1))
        try:
            if step == "comment":
                poster.comment(entry.repo, entry.number, entry.comment)
            elif step == "assign":
                poster.set_assignees(entry.repo, entry.number, list(entry.assignees or ()))
            else:
                poster.close_issue(entry.repo, entry.number)
        except TeamdeckError as err:
            error = str(err)
            record_attempt(ws, entry, step, False, error)
            continue
        record_attempt(ws, entry, step, True, f"{step} done")
        return ""
    return error


def deliver_if_configured(ws: Workspace) -> list[str]:
    """Deliver the pending entries when Gitea's API is configured (``$TEAMDECK_FORGE_URL``
    or ``forge.url``, and ``$TEAMDECK_FORGE_TOKEN``); otherwise say what to set. Nothing
    pending: nothing to say."""
    if not pending(ws):
        return []
    from teamdeck.adapters.gitea_api import ENV_TOKEN, ENV_URL, api_from_env  # the HTTP client: only when needed

    api = api_from_env(ws)
    if api is None:
        return [
            f"the outcome was not posted on Gitea: set ${ENV_URL} and ${ENV_TOKEN}, then run "
            "`teamdeck forge deliver` (it waits in forge/outbox.jsonl)"
        ]
    return deliver_outbox(ws, api)
