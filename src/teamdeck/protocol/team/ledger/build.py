"""Building a team's ledger: read the team, fold what changed, apply the rules.

The one entry point to the ledger (``teamdeck doctor``, the live view, and the protocol
functions that act on handshakes all call it). It also fixes the order of the findings:
handshake failures, unread messages, deliveries, a blocked delete, orphan replies, then
the notices about inboxes, entries and files.
"""

from __future__ import annotations

from datetime import timedelta
from functools import cache

from teamdeck.formats.registry import team_format
from teamdeck.model.team import TeamConfig
from teamdeck.protocol.team.inboxes import TeamInboxes, read_inboxes
from teamdeck.protocol.team.ledger.fold import LedgerFold, idle_folds
from teamdeck.protocol.team.ledger.handshake_reads import (
    Context,
    classify_handshakes,
    orphan_replies,
    unread_after_idle,
)
from teamdeck.protocol.team.ledger.results import DEFAULT_SHUTDOWN_TIMEOUT, Finding, Ledger, RosterEntry
from teamdeck.protocol.team.teams import delete_blockers, read_task_list, read_team
from teamdeck.store.workspace import Workspace


def build_ledger(
    ws: Workspace,
    team: str,
    *,
    config: TeamConfig | None = None,
    inboxes: TeamInboxes | None = None,
    fold: LedgerFold | None = None,
    shutdown_timeout: timedelta = DEFAULT_SHUTDOWN_TIMEOUT,
) -> Ledger:
    """Read the team and build its :class:`Ledger`.

    Args:
        ws: the workspace.
        team: the team.
        config: the team's config.json when the caller holds it as read since its
            last change (the live view, refreshing after an inbox changed); read here
            when None.
        inboxes: the team's inboxes when the caller has just read them (the live view
            re-reads only the inbox that changed); read here when None.
        fold: what earlier builds of this team folded (the live view keeps one per
            team): only the inboxes read since and the log records appended since
            are folded now. None: everything is read and folded here.
        shutdown_timeout: how long a shutdown request waits before it is overdue
            (measured against the workspace clock).

    Raises:
        NotFound: no such team.
        InvalidFile: config.json is unreadable (inboxes that are unreadable are findings).
    """
    if config is None:
        config = read_team(ws, team)
    if inboxes is None:
        inboxes = read_inboxes(ws, team)
    if fold is None:
        fold = LedgerFold(ws, team)
    log, bad_records = fold.log()
    folds = {recipient: fold.inbox(inbox) for recipient, inbox in inboxes.inboxes.items()}
    wakes = cache(lambda: team_format(ws, team).inbox_wakes_inactive)
    ctx = Context(config, folds, ws.clock(), shutdown_timeout, inbox_wakes_inactive=wakes)
    ledger = Ledger(team, config, delete_blockers=delete_blockers(config))
    for member in config.members:
        inbox = folds.get(member.name)
        ledger.members.append(
            RosterEntry(
                member.name,
                member.agentType,
                member.color,
                member.isActive,
                config.is_lead(member.name),
                inbox.unread if inbox else 0,
                inbox.messages if inbox else 0,
            )
        )
    ledger.handshakes = classify_handshakes(ctx, log.superseded)
    ledger.idles = idle_folds(folds.values())
    ledger.reports = [report for folded in folds.values() for report in folded.reports]
    ledger.bad_frames = [(recipient, *bad) for recipient, folded in folds.items() for bad in folded.bad_frames]
    for termination in sorted((t for f in folds.values() for t in f.terminations), key=lambda t: t.at):
        ledger.terminations[termination.member.lower()] = termination
    findings = ledger.findings
    findings += [
        Finding(h.failure, h.detail, member=h.member, request_id=h.request_id) for h in ledger.handshakes if h.failure
    ]
    findings += [
        Finding("turn_failed", f"{idle.member}'s turn failed at {idle.last_at}: {idle.failure}", member=idle.member)
        for idle in ledger.idles.values()
        if idle.failure is not None and idle.idle_since is not None
    ]
    findings += unread_after_idle(ctx, cache(lambda: _completed_tasks(ws, team)))
    findings += fold.deliveries(log, folds, ctx.is_member, inboxes.unreadable)
    if log.refused is not None and ledger.delete_blockers:
        findings.append(
            Finding(
                "team_delete_blocked",
                f"team delete refused at {log.refused.ts}; still blocked by "
                f"{len(ledger.delete_blockers)} active member(s): {', '.join(ledger.delete_blockers)}",
            )
        )
    findings += orphan_replies(ctx)
    for recipient, folded in folds.items():
        if not ctx.is_member(recipient):
            findings.append(
                Finding(
                    "non_member",
                    f"inbox {recipient}.json holds {folded.messages} message(s) for '{recipient}', who is not a member",
                    member=recipient,
                )
            )
        findings += [
            Finding("bad_entry", f"inbox {recipient}.json {problem}", member=recipient) for problem in folded.problems
        ]
    findings += [
        Finding("unreadable_inbox", problem, member=recipient) for recipient, problem in inboxes.unreadable.items()
    ]
    findings += [Finding("bad_log_record", problem) for problem in bad_records]
    findings += [Finding("ignored", line) for line in inboxes.ignored]
    return ledger


def _completed_tasks(ws: Workspace, team: str) -> dict[str, str]:
    """Task id → owner of each completed task of the team's Claude Code task list."""
    return {task.id: task.owner or "" for task in read_task_list(ws, team).tasks if task.status == "completed"}
