"""What must reach Gitea, recorded before anything leaves the machine: ``forge/outbox.jsonl``.

The protocol never talks to Gitea. A decision that should show on Gitea (a round
review's outcome: a comment, and closing the parent when the goal is achieved; a
stalled issue reassigned: a comment, and its new assignees) appends
a ``queued`` record here; an adapter at the edge (teamdeck/adapters/forge_outbox.py)
delivers it through a :class:`ForgePoster` it is given, and records each ``attempt``.
An entry whose tries all failed is ``failed``: it waits in the decision queue (kind
``forge-delivery``) until a person retries it (a ``retry`` record: pending again) or
drops it (``dropped``).

Records (one JSON object a line, appended under the file's lock):

- ``{"id", "type": "queued", "at", "by", "repo", "number", "comment", "close", "why"}``
  (and ``"assignees": [login...]`` when the issue's assignees are to be set)
- ``{"id", "type": "attempt", "entry", "at", "step": "comment"|"assign"|"close", "ok", "detail"}``
- ``{"id", "type": "gave_up", "entry", "at"}``: the adapter's tries are spent (``failed``)
- ``{"id", "type": "retry"|"dropped", "entry", "at", "by", "note"}``: a person's answer
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from teamdeck.clock import iso
from teamdeck.errors import Conflict, NotFound
from teamdeck.ids import new_ulid
from teamdeck.store.files import ensure_dir
from teamdeck.store.jsonl import append_record, read_records
from teamdeck.store.locks import locked
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace

EntryState = Literal["pending", "delivered", "failed", "dropped"]
Step = Literal["comment", "assign", "close"]


class ForgePoster(Protocol):
    """What delivering needs of Gitea (teamdeck/adapters/gitea_api.py ``GiteaApi``)."""

    def comment(self, repo: str, number: int, text: str) -> int | None:
        """Post ``text`` on issue ``number``; raise ``TeamdeckError`` on failure."""
        ...  # pragma: no cover - an interface

    def close_issue(self, repo: str, number: int) -> None:
        """Close issue ``number``; raise ``TeamdeckError`` on failure."""
        ...  # pragma: no cover - an interface

    def set_assignees(self, repo: str, number: int, logins: list[str]) -> None:
        """Make ``logins`` the assignees of issue ``number``; raise ``TeamdeckError`` on failure."""
        ...  # pragma: no cover - an interface


@dataclass(frozen=True)
class OutboxEntry:
    """One thing for Gitea and how far it got.

    Attributes:
        id: the ``queued`` record's id.
        at: when it was queued.
        repo, number: the issue (``owner/name``, its number).
        comment: the comment to post.
        close: close the issue once the comment is posted.
        why: what it is about, for people.
        state: see :data:`EntryState`.
        commented: the comment is posted (a retry only closes).
        tries: the attempts since it was queued or last retried.
        error: the last failure, if the last attempt failed.
        failed_at: when that last failure was.
        assignees: the assignees to set once the comment is posted (None: leave them).
        assigned: they are set (a retry does not set them again).
    """

    id: str
    at: str
    repo: str
    number: int
    comment: str
    close: bool
    why: str
    state: EntryState = "pending"
    commented: bool = False
    tries: int = 0
    error: str = ""
    failed_at: str = ""
    assignees: tuple[str, ...] | None = None
    assigned: bool = False

    @property
    def ref(self) -> str:
        return f"{self.repo}#{self.number}"


def outbox_path(ws: Workspace) -> Path:
    return ws.forge_dir / "outbox.jsonl"


def _append(ws: Workspace, record: dict[str, Any]) -> dict[str, Any]:
    moment = ws.clock()
    record = {"id": new_ulid(moment), **record, "at": iso(moment)}
    append_record(outbox_path(ws), record)
    return record


def queue_post(
    ws: Workspace,
    repo: str,
    number: int,
    comment: str,
    *,
    close: bool,
    why: str,
    assignees: list[str] | None = None,
) -> OutboxEntry:
    """Record that ``comment`` must be posted on ``repo#number`` (then its assignees set
    to ``assignees`` when given, then the issue closed, with ``close``); the adapter
    delivers it."""
    ws.require_writable(f"queue a comment on {shown(repo)}#{number}")
    ensure_dir(ws.forge_dir)
    with locked(outbox_path(ws), what="forge/outbox.jsonl"):
        record = _append(
            ws,
            {
                "type": "queued",
                "by": ws.actor,
                "repo": repo,
                "number": number,
                "comment": comment,
                "close": close,
                "why": why,
                **({"assignees": list(assignees)} if assignees is not None else {}),
            },
        )
    return _queued(record)


def read_outbox(ws: Workspace) -> list[OutboxEntry]:
    """Every entry, oldest first, folded from its records (bad lines are for ``validate``)."""
    records, _problems = read_records(outbox_path(ws))
    entries: dict[str, OutboxEntry] = {}
    for record in records:
        kind, entry_id = record.get("type"), record.get("entry")
        if kind == "queued":
            entries[str(record.get("id"))] = _queued(record)
        elif isinstance(entry_id, str) and entry_id in entries:
            entries[entry_id] = _folded(entries[entry_id], record)
    return list(entries.values())


def _queued(record: dict[str, Any]) -> OutboxEntry:
    number = record.get("number")
    return OutboxEntry(
        id=str(record.get("id")),
        at=str(record.get("at", "")),
        repo=str(record.get("repo", "")),
        number=number if isinstance(number, int) else 0,
        comment=str(record.get("comment", "")),
        close=record.get("close") is True,
        why=str(record.get("why", "")),
        assignees=tuple(str(login) for login in assignees)
        if isinstance(assignees := record.get("assignees"), list)
        else None,
    )


def _folded(entry: OutboxEntry, record: dict[str, Any]) -> OutboxEntry:
    kind = record.get("type")
    if kind == "attempt":
        if record.get("ok") is not True:
            return replace(
                entry, tries=entry.tries + 1, error=str(record.get("detail", "")), failed_at=str(record.get("at", ""))
            )
        step = record.get("step")
        commented = entry.commented or step == "comment"
        assigned = entry.assigned or step == "assign"
        last: Step = "close" if entry.close else "assign" if entry.assignees is not None else "comment"
        done = commented and step == last
        return replace(
            entry, commented=commented, assigned=assigned, error="", state="delivered" if done else entry.state
        )
    if kind == "gave_up":
        return replace(entry, state="failed")
    if kind == "retry":
        return replace(entry, state="pending", tries=0)
    if kind == "dropped":
        return replace(entry, state="dropped")
    return entry


def pending(ws: Workspace) -> list[OutboxEntry]:
    """The entries still to deliver, oldest first."""
    return [entry for entry in read_outbox(ws) if entry.state == "pending"]


def record_attempt(ws: Workspace, entry: OutboxEntry, step: Step, ok: bool, detail: str) -> None:
    """Record one try of ``step`` of ``entry`` (the adapter calls it after each)."""
    with locked(outbox_path(ws), what="forge/outbox.jsonl"):
        _append(ws, {"type": "attempt", "entry": entry.id, "step": step, "ok": ok, "detail": detail[:500]})


def give_up(ws: Workspace, entry: OutboxEntry) -> None:
    """Record that ``entry``'s tries are spent: it waits for a person (the decision queue)."""
    with locked(outbox_path(ws), what="forge/outbox.jsonl"):
        _append(ws, {"type": "gave_up", "entry": entry.id})


def _answer(ws: Workspace, entry_id: str, kind: Literal["retry", "dropped"], note: str | None) -> OutboxEntry:
    verb = "retry" if kind == "retry" else "drop"
    ws.require_writable(f"{verb} the forge delivery {shown(entry_id)}")
    with locked(outbox_path(ws), what="forge/outbox.jsonl"):
        found = next((entry for entry in read_outbox(ws) if entry.id == entry_id), None)
        if found is None:
            raise NotFound(
                f"Could not {verb} the forge delivery {shown(entry_id)}: forge/outbox.jsonl has no such entry"
            )
        if found.state != "failed":
            raise Conflict(f"Could not {verb} the forge delivery {shown(entry_id)}: it is {found.state}, not failed")
        _append(ws, {"type": kind, "entry": entry_id, "by": ws.actor, "note": note})
    return found


def retry_delivery(ws: Workspace, entry_id: str, note: str | None = None) -> OutboxEntry:
    """Make a failed entry pending again (the front that asked then delivers it).

    Raises:
        NotFound: no such entry; Conflict: it is not failed (nothing written).
    """
    return _answer(ws, entry_id, "retry", note)


def drop_delivery(ws: Workspace, entry_id: str, note: str | None = None) -> OutboxEntry:
    """Give up a failed entry for good: Gitea is not updated (the outcome stays in teamdeck).

    Raises:
        NotFound: no such entry; Conflict: it is not failed (nothing written).
    """
    return _answer(ws, entry_id, "dropped", note)
