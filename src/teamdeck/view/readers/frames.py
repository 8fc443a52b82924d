"""What the roster, inbox and queue make of the frames Claude Code 2.1.332 added
(FORMAT.md "Mailbox frames"; a sandbox host request is a decision:
view/readers/team_decisions.py); ``task_completed`` and ``teammate_terminated`` change
what the roster and the task list say; the frames the client drops from inboxes
(``mode_set_request``, ``team_permission_update``) are shown as such.
view/readers/team_roster.py, team_decisions.py, inbox_fold.py and team_files.py call
these, so each frame is handled in one place.
"""

from __future__ import annotations

from teamdeck.formats.registry import team_format
from teamdeck.model.team import (
    Kind,
    ModeSetRequest,
    SandboxPermissionRequest,
    SandboxPermissionResponse,
    TaskCompleted,
    TeammateTerminated,
    TeamPermissionUpdate,
)
from teamdeck.protocol.team.ledger.results import Ledger
from teamdeck.store.loaders import dumps_json
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.workspace import MemberView, Problem

DROPPED = "Claude Code 2.1.332 drops it from the inbox unread"


def describe_frame(kind: Kind) -> tuple[str, str] | None:
    """A one-line summary and the body of one of the newer frames (None: another kind)."""
    if isinstance(kind, TaskCompleted):
        subject = f": {kind.taskSubject}" if kind.taskSubject else ""
        return f"task #{kind.taskId} completed{subject}", kind.taskSubject or ""
    if isinstance(kind, TeammateTerminated):
        return f"terminated: {kind.message}", kind.message
    if isinstance(kind, SandboxPermissionRequest):
        return f"sandbox host requested: {kind.hostPattern.host}", dumps_json(kind.to_payload(), indent=2)
    if isinstance(kind, SandboxPermissionResponse):
        verdict = "allowed" if kind.allow else "denied"
        return f"sandbox host {verdict}: {kind.host}", dumps_json(kind.to_payload(), indent=2)
    if isinstance(kind, ModeSetRequest):
        return f"permission mode change request ({DROPPED}: mode changes are never accepted from the inbox)", ""
    if isinstance(kind, TeamPermissionUpdate):
        return f"permission rules update ({DROPPED}: rules are never accepted from the inbox)", ""
    return None


def termination_of(ledger: Ledger | None, key: str) -> str:
    """What the newest ``teammate_terminated`` naming member ``key`` (lower-cased) says,
    or ``""``."""
    found = ledger.terminations.get(key) if ledger is not None else None
    return found.message if found is not None else ""


def reports_of(ledger: Ledger | None, key: str) -> str:
    """The tasks member ``key`` (lower-cased) reported completed (``task_completed``),
    as a roster detail (``reported #1, #2 completed``), or ``""``."""
    ids = [report.task_id for report in (ledger.reports if ledger else ()) if report.member.lower() == key]
    return f"reported {', '.join(f'#{task_id}' for task_id in dict.fromkeys(ids))} completed" if ids else ""


def task_reports(ledger: Ledger | None) -> tuple[tuple[str, str, str], ...]:
    """``(task id, member, at)`` of every ``task_completed`` of the team, oldest first."""
    return tuple((report.task_id, report.member, report.at) for report in (ledger.reports if ledger else ()))


def departed(team: str, ledger: Ledger | None, present: set[str]) -> list[MemberView]:
    """A roster row for each teammate of ``team`` a ``teammate_terminated`` names that is
    no longer in config.json (2.1.332 removes a teammate that shut down): offline, the
    message as its reason. ``present``: the lower-cased names already on the roster."""
    if ledger is None:
        return []
    return [
        MemberView(
            team=team,
            name=termination.member,
            active=False,
            status="offline",
            since=termination.at,
            detail=termination.message,
        )
        for key, termination in sorted(ledger.terminations.items())
        if key not in present
    ]


def frame_problems(ws: Workspace, team: str, ledger: Ledger | None) -> list[Problem]:
    """A problem for each known frame of ``team`` whose fields do not fit its schema (it
    is shown raw in the inbox): the inbox file, the entry, the frame type and what is
    wrong (the ledger's fold found them, once per inbox read)."""
    if ledger is None or not ledger.bad_frames:
        return []  # the usual case, asked of every team on every refresh: no format lookup
    team_files = team_format(ws, team)
    return [
        Problem(str(ws.rel(team_files.inbox(ws, team, recipient))), f"entry {index}", f"{kind} frame: {why}")
        for recipient, index, kind, why in ledger.bad_frames
    ]
