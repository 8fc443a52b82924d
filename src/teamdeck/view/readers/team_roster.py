"""The team as the roster shows it (:class:`TeamView`): each member's derived status
(snapshot.py, :data:`MemberStatus`) with its since, detail and markers from the team's
ledger (and, for a member ``teamdeck run`` runs, from its runs), its unread count and
last activity from its inbox rows, and whether an MCP server acts as it (a fresh
heartbeat)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import NamedTuple

from teamdeck.clock import iso
from teamdeck.formats.inboxes import Inbox
from teamdeck.model.connection import STALE_S
from teamdeck.model.team import MEMBER_ROLES
from teamdeck.protocol.team.archive import session_of
from teamdeck.protocol.team.ledger.moments import moment_of
from teamdeck.protocol.team.ledger.results import FAILURE_CLASSES, Handshake, Ledger
from teamdeck.view.readers.frames import departed, reports_of, task_reports, termination_of
from teamdeck.view.readers.inbox_fold import InboxRows
from teamdeck.view.readers.runs import RunState
from teamdeck.view.readers.team_files import TeamFiles
from teamdeck.view.snapshot.workspace import MemberStatus, MemberView, Problem, TeamView


class Runner(NamedTuple):
    """What is known of a member an ``agents:`` entry names (``teamdeck run`` runs it)."""

    runs: RunState | None
    """How its runs stand (None: it never ran)."""
    model: str | None = None
    """The model its entry configures (shown when the team's config names none)."""


def inbox_rows(files: TeamFiles, inbox: Inbox) -> InboxRows:
    """The rows of ``inbox``, made again only if this is another read of it (and
    then from the earlier rows when the inbox only grew)."""
    made = files.rows.get(inbox.recipient)
    if made is None or made.inbox is not inbox:
        made = files.rows[inbox.recipient] = InboxRows.of(inbox, made)
    return made


def _last_activity(files: TeamFiles) -> dict[str, datetime]:
    """Per member (lower-cased), the newest message it sent or received."""
    newest: dict[str, datetime] = {}
    for inbox in files.inboxes.inboxes.values():
        for key, when in inbox_rows(files, inbox).activity.items():
            if key not in newest or when > newest[key]:
                newest[key] = when
    return newest


def connected(files: TeamFiles, member: str, now: datetime | None) -> str:
    """Where an MCP server acting as ``member`` serves (its URL), or ``""`` when none
    has a heartbeat newer than :data:`STALE_S` seconds at ``now`` (None: any heartbeat)."""
    found = next((conn for name, conn in files.connections.items() if name.lower() == member.lower()), None)
    if found is None:
        return ""
    beat = moment_of(found.beatAt)
    if now is not None and (beat is None or (now - beat).total_seconds() > STALE_S):
        return ""
    return found.url


def team_view(
    files: TeamFiles,
    waiting_on_gates: frozenset[str] = frozenset(),
    now: datetime | None = None,
    *,
    stalled: Mapping[str, str] | None = None,
    run_by: Mapping[str, Runner] | None = None,
) -> TeamView:
    """The team as the roster shows it.

    Args:
        files: what was read (with the team's ledger).
        waiting_on_gates: lower-cased names of members whose worker waits on an open
            task gate (they are ``awaiting``).
        now: the time heartbeats are judged fresh at (None: every heartbeat counts).
        stalled: lower-cased member name -> why a stall decision waits about it (a marker).
        run_by: lower-cased name -> its runs and configured model, for exactly the
            members an ``agents:`` entry names: their status comes from their runs.
    """
    config = files.config
    activity = _last_activity(files)
    members = []
    for member in config.members if config is not None else []:
        inbox = files.inbox_of(member.name)
        key = member.name.lower()
        rows = inbox_rows(files, inbox) if isinstance(inbox, Inbox) else None
        status = _status(key, member.isActive, files.ledger, key in waiting_on_gates)
        runner = run_by.get(key) if run_by is not None else None
        runner_runs = runner is not None
        if runner is not None and status.status in ("working", "idle"):
            status = _from_runs(runner.runs, status)
        if files.ended:
            status = _Status("offline", "", status.detail if status.status == "offline" else ENDED, (), None, None)
        members.append(
            MemberView(
                team=files.name,
                name=member.name,
                agent_type=member.agentType,
                model=member.model or (runner.model if runner is not None else None),
                role=member.role if member.role in MEMBER_ROLES and member.role != "none" else None,
                color=member.color,
                lead=config is not None and config.is_lead(member.name),
                active=member.isActive,
                status=status.status,
                since=status.since,
                detail=status.detail,
                unread=rows.unread if rows is not None else 0,
                last_activity=iso(activity[key]) if key in activity else "",
                markers=status.markers + ((f"stalled: {stalled[key]}",) if stalled and key in stalled else ()),
                inbox=rows.rows if rows is not None else (),
                inbox_problem=Problem(f"teams/{files.name}/inboxes/{member.name}.json", "", inbox)
                if isinstance(inbox, str)
                else None,
                pending_shutdown=status.pending_shutdown,
                pending_plan=status.pending_plan,
                connected=connected(files, member.name, now),
                run_by_runner=runner_runs,
                run_failures=status.failures,
            )
        )
    members += departed(files.name, files.ledger, {member.name.lower() for member in members})
    markers = (
        tuple(
            f"{FAILURE_CLASSES[finding.code]}: {finding.detail}"
            for finding in files.ledger.failures
            if finding.member is None
        )
        if files.ledger
        else ()
    )
    return TeamView(
        name=files.name,
        description=(config.description or "") if config else "",
        lead=config.lead_name if config is not None else "team-lead",
        members=tuple(members),
        problem=files.problem,
        markers=markers,
        task_reports=task_reports(files.ledger),
        session=session_of(files.name, config),
        ended=files.ended,
    )


ENDED = "team ended: its directory is gone (last known roster)"


def _handshakes(ledger: Ledger | None, kind: str, member: str) -> list[Handshake]:
    if ledger is None:
        return []
    return [
        handshake for handshake in ledger.handshakes if handshake.kind == kind and handshake.member.lower() == member
    ]


class _Status(NamedTuple):
    """A member's status and what goes with it, from the team's ledger."""

    status: MemberStatus
    since: str
    detail: str
    markers: tuple[str, ...]
    pending_shutdown: str | None
    pending_plan: str | None
    failures: int = 0


def _from_runs(runs: RunState | None, ledger: _Status) -> _Status:
    """The status of a member the runner runs, from its runs, in place of the ledger's
    ``working`` or ``idle`` (a guess for it: nothing in its roster or its inbox says
    when its turns end); the ledger's markers are kept, a run of failures adds one."""
    if runs is None:
        return ledger._replace(status="never-run", since="", detail="no run yet: teamdeck run wakes it on a message")
    if runs.running:
        return ledger._replace(status="running", since=runs.since or "", detail=f"run {runs.run_id}")
    if runs.failures:
        times = f"{runs.failures} time{'s' if runs.failures != 1 else ''}"
        return ledger._replace(
            status="failed",
            since=runs.ended_at or "",
            detail=f"its last run failed ({times} in a row): {runs.last_error}",
            markers=(*ledger.markers, f"run failed ×{runs.failures}: {runs.last_error}"),
            failures=runs.failures,
        )
    return ledger._replace(status="idle", since=runs.ended_at or "", detail=f"last run {runs.last_outcome}")


def _status(key: str, active: bool, ledger: Ledger | None, on_gate: bool) -> _Status:
    """The status of the member ``key`` (lower-cased), its since, detail and markers."""
    shutdowns = _handshakes(ledger, "shutdown", key)
    shutdown = shutdowns[-1] if shutdowns else None
    plans = [handshake for handshake in _handshakes(ledger, "plan", key) if handshake.state == "awaiting_decision"]
    idle = next((fold for name, fold in ledger.idles.items() if name.lower() == key), None) if ledger else None

    status: MemberStatus = "working"
    since, detail = "", ""
    terminated = termination_of(ledger, key)
    if not active or terminated:
        status, detail = "offline", terminated
        if shutdown is not None and shutdown.replied_at:
            since = shutdown.replied_at
    elif shutdown is not None and shutdown.state == "approved":
        status, since, detail = "shutdown-approved", shutdown.replied_at or "", shutdown.detail
    elif shutdown is not None and shutdown.state == "awaiting_response" and shutdown.overdue:
        status, since = "shutdown-stuck", shutdown.requested_at
        detail = f"awaiting shutdown_response since {shutdown.requested_at}: resend or force (Decisions)"
    elif shutdown is not None and shutdown.state == "awaiting_response":
        status, since, detail = "shutdown-requested", shutdown.requested_at, shutdown.detail
    elif plans or on_gate:
        status = "awaiting"
        since = plans[-1].requested_at if plans else ""
        detail = "plan approval requested" if plans else "a task gate waits for a decision"
    elif idle is not None and idle.idle_since:
        status, since = "idle", idle.idle_since
        count = f"{idle.count} idle notification{'s' if idle.count != 1 else ''}"
        reason = f"turn failed: {idle.failure}" if idle.failure else idle.last_reason or "available"
        detail = f"{reason} ({count})"
    if shutdown is not None and shutdown.state == "rejected" and not detail:
        detail = shutdown.detail
    if reported := reports_of(ledger, key):
        detail = f"{detail}; {reported}" if detail else reported
    failures = [finding for finding in ledger.failures if (finding.member or "").lower() == key] if ledger else []
    return _Status(
        status,
        since,
        detail,
        tuple(f"{FAILURE_CLASSES[finding.code]}: {finding.detail}" for finding in failures),
        shutdown.request_id if status in ("shutdown-requested", "shutdown-stuck") and shutdown else None,
        plans[-1].request_id if plans else None,
    )
