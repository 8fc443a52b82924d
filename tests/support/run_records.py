"""What `teamdeck run` leaves on disk, written directly: ``agents:`` entries naming who it
runs, a run whose process is really there, and runs that ended (succeeded, failed...),
so the read model and the fronts can be tested without starting a runner."""

from __future__ import annotations

import subprocess
from datetime import timedelta

import yaml

from teamdeck.clock import iso
from teamdeck.ids import new_ulid
from teamdeck.model.run import RunOutcome, RunRecord
from teamdeck.store.lock_owner import process_started
from teamdeck.store.runs import write_run
from teamdeck.store.workspace import Workspace


def name_in_agents(ws: Workspace, *patterns: str) -> None:
    """Write ``agents:`` with a ``command`` entry for each ``team/member`` pattern."""
    section = {pattern: {"runtime": "command", "command": ["true"]} for pattern in patterns}
    (ws.root / ".teamdeck.yaml").write_text(yaml.safe_dump({"agents": section}))


def run_id(ws: Workspace, minutes_ago: float = 0) -> str:
    """A run id (``r-<ulid>``) created ``minutes_ago`` before the workspace's clock."""
    return "r-" + new_ulid(ws.clock() - timedelta(minutes=minutes_ago)).lower()


def running(ws: Workspace, team: str, member: str, run: str | None = None) -> subprocess.Popen[bytes]:
    """A run of ``team/member`` whose process (a sleep) is really there; the caller kills it."""
    process = subprocess.Popen(["sleep", "60"], start_new_session=True)
    record = RunRecord(
        id=run or run_id(ws), team=team, member=member, runtime="command", trigger="message",
        argv=["sleep", "60"], pid=process.pid, processStarted=process_started(process.pid), state="running",
        createdAt=iso(ws.clock()), startedAt=iso(ws.clock()),
    )  # fmt: skip
    write_run(ws, record)
    return process


def ended(
    ws: Workspace,
    team: str,
    member: str,
    outcome: RunOutcome,
    *,
    minutes_ago: float = 5,
    error: str | None = None,
    exit_status: int | None = None,
) -> RunRecord:
    """A run of ``team/member`` that ended ``minutes_ago`` with ``outcome`` (it ran a minute)."""
    end = ws.clock() - timedelta(minutes=minutes_ago)
    start = end - timedelta(minutes=1)
    record = RunRecord(
        id="r-" + new_ulid(start).lower(), team=team, member=member, runtime="command", trigger="message",
        argv=["true"], state="ended", createdAt=iso(start), startedAt=iso(start), endedAt=iso(end),
        outcome=outcome, error=error,
        exitStatus=exit_status if exit_status is not None else (0 if outcome == "succeeded" else 1),
    )  # fmt: skip
    write_run(ws, record)
    return record
