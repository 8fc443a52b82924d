"""After a runner crash: what became of each run still recorded as ``running`` (F25).

- Its process still runs: it is **adopted** (the recorded pid *and* start time match: a
  reused pid is not it; a run whose pid was not recorded yet is found by its
  environment: process.run_leader). The next runner watches it to its end.
- Its agent started and its process is gone: it **ended while no runner watched**. It is
  recorded as ended with what can be known: what its output reports (session, usage,
  cost, result, a reported error: the runtime reads it, as for any run), its exit
  status unknown (outcome ``unknown``, or ``failed`` when it reported an error), its end
  the last change of its logs.
- Its agent never started (no pid recorded, no output.log: :func:`~teamdeck.runner.process.spawn`
  creates it before the program starts): it is **lost**, and the runner retries it, or
  asks the run-failed decision, as it does a failed run.

Nothing is run twice behind anyone's back: an agent that started runs again only as the
retry of a run whose output says it failed, or when a person answers retry.
"""

from __future__ import annotations

import os
from datetime import timedelta
from enum import Enum
from time import time

from teamdeck.clock import iso, parse_iso
from teamdeck.model.agents import AgentConfig
from teamdeck.model.run import RunRecord
from teamdeck.runner.execution import Execution
from teamdeck.runner.process import Identity, run_leader
from teamdeck.runtime.registry import runtime_of_run
from teamdeck.runtime.spec import RunRequest
from teamdeck.store.runs import OUTPUT_FILE, STDERR_FILE
from teamdeck.store.workspace import Workspace

LOST = "the runner ended before its agent started: it never ran"
GONE = "its process ended while no runner watched: its exit status is unknown"


class Recovered(Enum):
    """What :func:`recover` found of a run recorded as running."""

    ADOPTED = "adopted"
    """Its process still runs: watch it (``identity`` set)."""
    GONE = "gone"
    """Its process ended while no runner watched: record its end (``ended_at`` set)."""
    LOST = "lost"
    """Its agent never started: recorded as lost; retry it, as a failed run."""


def execution_of(ws: Workspace, record: RunRecord, config: AgentConfig | None) -> Execution:
    """The recorded run as an :class:`Execution` (its request rebuilt from the record and
    the member's settings now, the defaults when it has none): to watch it, record its
    end, retry it."""
    request = RunRequest(
        workspace=ws.root,
        team=record.team,
        member=record.member,
        run_id=record.id,
        run_dir=ws.run_dir(record.team, record.member, record.id),
        config=config or AgentConfig(runtime=record.runtime),
        session_id=record.sessionId,
        attempt=record.attempt,
        trigger=record.trigger,
    )
    runtime = runtime_of_run(record.runtime)
    return Execution(ws, record, request, runtime, frozenset(m.key for m in record.messages))


def recover(ws: Workspace, record: RunRecord, config: AgentConfig | None) -> tuple[Recovered, Execution]:
    """What became of ``record`` (see the module), and the run as an :class:`Execution`.
    A lost run is recorded as lost here; an adopted one gets its ``adopted`` event (and
    its pid, when it was not recorded); a gone one its ``gone`` event, its end left to
    the caller (:meth:`Execution.finish`, once its leftovers ended)."""
    execution = execution_of(ws, record, config)
    if record.pid is not None:
        identity: Identity | None = Identity(record.pid, record.processStarted)
    else:
        identity = run_leader(ws.root, record.id)
    if identity is not None and identity.alive():
        if record.pid is None:
            started = ws.clock() - timedelta(seconds=max(0.0, time() - (identity.started or time())))
            execution.record = record.model_copy(
                update={"pid": identity.pid, "processStarted": identity.started, "startedAt": iso(started)}
            )
            execution.save()
        execution.identity = identity
        execution.event("adopted", pid=identity.pid)
        return Recovered.ADOPTED, execution
    changed = _last_change(execution)
    if record.pid is not None or changed is not None:
        execution.ended_at = changed
        execution.event("gone", pid=record.pid, why=GONE)
        return Recovered.GONE, execution
    execution.record = record.model_copy(
        update={"state": "lost", "outcome": "lost", "endedAt": record.createdAt, "error": LOST}
    )
    execution.save()
    execution.event("lost", why=LOST)
    return Recovered.LOST, execution


def _last_change(execution: Execution) -> str | None:
    """When the run's logs last changed (its agent's last output: as close to its end as
    can be known), on the workspace's clock and not before the run started; None when
    it has no logs (its agent never started)."""
    times = []
    for name in (OUTPUT_FILE, STDERR_FILE):
        try:
            times.append(os.stat(execution.request.run_dir / name, follow_symlinks=False).st_mtime)
        except OSError:
            continue
    if not times:
        return None
    record = execution.record
    changed = execution.ws.clock() - timedelta(seconds=max(0.0, time() - max(times)))
    started = parse_iso(record.startedAt or record.createdAt)
    return iso(max(changed, started))
