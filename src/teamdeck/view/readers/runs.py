"""What ``teamdeck run`` recorded, as every front shows it: each member's runs (live or
not, since when, runs today, cost), and the runner's decisions (a run that failed every
retry, a budget reached) as rows of the decision queue.

Reads only: runs/<team>/<member>/<run_id>/run.yaml and runs/decisions.jsonl.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from teamdeck.errors import InvalidFile
from teamdeck.model.run import RunRecord
from teamdeck.protocol.runs.decisions import RunDecision, run_decisions
from teamdeck.runtime.registry import runtime_of_run
from teamdeck.store.lock_owner import is_running
from teamdeck.store.runs import (
    EVENTS_FILE,
    OUTPUT_FILE,
    STDERR_FILE,
    holder_of,
    member_run_dirs,
    read_log,
    read_run,
    run_members,
    tail_text,
)
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.runs import MemberRuns
from teamdeck.view.snapshot.workspace import Decision


def member_runs(ws: Workspace, team: str, member: str) -> MemberRuns:
    """The runs recorded for ``team/member``."""
    runs: list[RunRecord] = []
    problems: list[str] = []
    for run_dir in member_run_dirs(ws, team, member):
        try:
            runs.append(read_run(ws, run_dir))
        except FileNotFoundError:
            continue
        except InvalidFile as err:
            problems.append(str(err))
    return MemberRuns(team, member, tuple(runs), tuple(problems))


def all_runs(ws: Workspace, team: str | None = None) -> list[MemberRuns]:
    """Every member with runs (of ``team`` only, when given), by team and member."""
    return [member_runs(ws, t, m) for t, m in sorted(run_members(ws)) if team is None or t == team]


def find_run(ws: Workspace, run_id: str) -> RunRecord | None:
    """The run ``run_id`` (a unique prefix of it is enough), or None."""
    for runs in all_runs(ws):
        for run in runs.runs:
            if run.id == run_id or (len(run_id) >= 6 and run.id.startswith(run_id)):
                return run
    return None


def runner_decisions(ws: Workspace) -> tuple[Decision, ...]:
    """The runner's open decisions as rows of the decision queue."""
    try:
        decisions = run_decisions(ws)
    except InvalidFile:
        return ()
    return tuple(as_decision(d) for d in decisions if d.open)


def as_decision(decision: RunDecision) -> Decision:
    who = decision.member if decision.member != "*" else f"team {decision.team}"
    return Decision(
        key=decision.key,
        kind=decision.kind,
        state="blocked" if decision.open else decision.answer or "",
        created_at=decision.asked_at,
        source=f"runner {decision.team}",
        title=decision.title,
        reason=decision.reason,
        agent=who,
        body=decision.tail,
        team=decision.team,
        member=decision.member,
        request_id=decision.run,
        decided_by=decision.answered_by,
        decided_at=decision.answered_at,
        note=decision.note,
    )


def run_events(ws: Workspace, run: RunRecord) -> list[dict[str, object]]:
    """The run's events.jsonl, oldest first."""
    return read_log(ws.run_dir(run.team, run.member, run.id) / EVENTS_FILE)


def run_output(ws: Workspace, run: RunRecord, limit: int = 4000) -> dict[str, str]:
    """The end of the run's output.log (made readable by the runtime it ran with) and
    stderr.log (by file name)."""
    run_dir = ws.run_dir(run.team, run.member, run.id)
    return {
        OUTPUT_FILE: runtime_of_run(run.runtime).read_log(run_dir / OUTPUT_FILE, limit),
        STDERR_FILE: tail_text(run_dir / STDERR_FILE, limit).rstrip("\n"),
    }


@dataclass(frozen=True)
class RunState:
    """What the roster and ``status`` say of a member's runs.

    Attributes:
        running: a run is going (``since``: when it started).
        runs_today: runs created today (UTC).
        cost_usd: every run's reported cost added up (None: none reported).
        costs_unknown: the runs whose cost could not be read (``costProblem``): the sum
            leaves them out, and says so.
        last_outcome: how the last ended run ended.
        left_unread: messages the last run was woken for and left unread (a finding).
        run_id: the live run, else the last one.
        ended_at: when the last ended run ended.
        failures: how many of the latest ended runs failed in a row (0: the last one
            did not fail): the member is ``failed ×N`` until a run does not fail.
        last_error: why the last ended run failed (its error, else its exit status).
    """

    running: bool
    since: str | None
    runs_today: int
    cost_usd: float | None
    costs_unknown: int
    last_outcome: str | None
    left_unread: int
    run_id: str | None
    ended_at: str | None = None
    failures: int = 0
    last_error: str = ""

    def to_json(self) -> dict[str, object]:
        return {
            "running": self.running,
            "since": self.since,
            "runsToday": self.runs_today,
            "costUsd": self.cost_usd,
            "costsUnknown": self.costs_unknown,
            "lastOutcome": self.last_outcome,
            "leftUnread": self.left_unread,
            "run": self.run_id,
            "endedAt": self.ended_at,
            "failures": self.failures,
        }

    def phrase(self, since_text: str = "") -> str:
        """``▶ running 3m · 2 runs today · $0.42`` (``since_text``: how long, as the front says it)."""
        parts = [f"▶ running {since_text}".rstrip()] if self.running else []
        if not self.running and self.last_outcome:
            parts.append(f"last run {self.last_outcome}")
        parts.append(f"{self.runs_today} run{'s' if self.runs_today != 1 else ''} today")
        if self.cost_usd is not None:
            parts.append(f"${self.cost_usd:.2f}")
        if self.costs_unknown:
            parts.append(f"{self.costs_unknown} cost{'s' if self.costs_unknown != 1 else ''} unknown")
        if self.left_unread:
            parts.append(f"left {self.left_unread} unread")
        return " · ".join(parts)


def process_alive(run: RunRecord) -> bool:
    """Whether the run's recorded process still runs (its pid, with the same start
    time: a pid reused by another program does not count)."""
    return run.pid is not None and is_running(run.pid, run.processStarted)


def live_runs(runs: Mapping[str, MemberRuns], now: datetime) -> list[str]:
    """The ``team/member`` keys of ``runs`` with a run going now: its process really
    there (:func:`run_state`), as the roster shows it ``▶ running``."""
    return [key for key, member in runs.items() if (state := run_state(member, now)) is not None and state.running]


def run_state(runs: MemberRuns | None, now: datetime) -> RunState | None:
    """The member's :class:`RunState`, or None when it never ran. ``running`` is true
    only while the recorded process is really there (a runner that died leaves a record
    saying ``running``: that is not believed)."""
    if runs is None or not runs.runs:
        return None
    live = runs.live
    if live is not None and live.pid is not None and not process_alive(live):
        live = None
    ended = [run for run in runs.runs if not run.live]
    last_ended = ended[-1] if ended else None
    failures = next((count for count, run in enumerate(reversed(ended)) if not run.failed), len(ended))
    reported = any(run.costUsd is not None for run in runs.runs)
    return RunState(
        running=live is not None,
        since=(live.startedAt or live.createdAt) if live is not None else None,
        runs_today=runs.runs_on(now),
        cost_usd=runs.cost_usd if reported else None,
        costs_unknown=sum(1 for run in runs.runs if run.costProblem is not None),
        last_outcome=last_ended.outcome if last_ended is not None else None,
        left_unread=last_ended.unreadAfter if last_ended is not None else 0,
        run_id=(live or runs.runs[-1]).id,
        ended_at=last_ended.endedAt if last_ended is not None else None,
        failures=failures,
        last_error=_why_failed(last_ended) if failures and last_ended is not None else "",
    )


def _why_failed(run: RunRecord) -> str:
    """What a failed run says of its failure: its error, else its exit status or outcome."""
    if run.error:
        return run.error
    if run.outcome == "timeout":
        return "timed out"
    return f"exit status {run.exitStatus}" if run.exitStatus is not None else f"{run.outcome}"


def runner_holder(ws: Workspace) -> dict[str, object] | None:
    """Who runs the workspace's runner now (pid, host, started, since), or None."""
    return holder_of(ws.runner_lock)
