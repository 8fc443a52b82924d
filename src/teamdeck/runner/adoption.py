"""After a runner crash: each run still recorded as ``running`` is adopted when its
process still runs (the recorded pid *and* start time match: a reused pid is not it),
else recorded as ``lost``. Nothing is started again: the lost run's messages stay owed."""

from __future__ import annotations

from teamdeck.model.agents import AgentConfig
from teamdeck.model.run import RunRecord
from teamdeck.runner.execution import Execution
from teamdeck.runner.process import Identity
from teamdeck.runtime.registry import runtime_of_run
from teamdeck.runtime.spec import RunRequest
from teamdeck.store.workspace import Workspace

LOST = "the runner ended while this run was going, and its process is gone"


def recover(ws: Workspace, record: RunRecord, config: AgentConfig | None) -> Execution | None:
    """The run as an :class:`Execution` to watch on (adopted: its ``identity`` set), or
    None when it was recorded as lost."""
    identity = Identity(record.pid, record.processStarted) if record.pid is not None else None
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
    execution = Execution(ws, record, request, runtime, frozenset(m.key for m in record.messages))
    if identity is not None and identity.alive():
        execution.identity = identity
        execution.event("adopted", pid=record.pid)
        return execution
    execution.record = record.model_copy(
        update={"state": "lost", "outcome": "lost", "endedAt": record.startedAt or record.createdAt, "error": LOST}
    )
    execution.save()
    execution.event("lost", pid=record.pid)
    return None
