"""One run, from its record to its end: the record written before anything starts, the
process spawned and recorded (pid, start time), the messages marked read when the
runtime injected them (unread again when its agent reads them itself and an earlier
attempt read them: a retry gets its work back), the timeout, what the agent left running
ended, and the outcome read back (exit status, session,
usage, cost, the messages its agent left unread). What a runtime reports is checked
again here (a finite cost, 0 or more; finite token counts: model/reported.py), whoever
wrote the runtime: a number that is no cost is the run's ``costProblem``.

A run the runner adopted after a restart (its process outlived the runner that started
it) goes through the same end, with an unknown exit status.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from dataclasses import dataclass, field
from datetime import timedelta

from teamdeck.clock import iso, parse_iso
from teamdeck.formats.registry import team_format
from teamdeck.ids import new_ulid
from teamdeck.model.reported import all_finite, read_cost
from teamdeck.model.run import RunMessage, RunnerRef, RunOutcome, RunRecord
from teamdeck.runner.inboxes import Unread, message_key, unread
from teamdeck.runner.process import Identity, end_leftovers, spawn, stop_group, wait_gone
from teamdeck.runtime.spec import Outcome, RunRequest, Runtime
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.files import ensure_dir
from teamdeck.store.loaders import dumps_json
from teamdeck.store.lock_owner import process_started
from teamdeck.store.runs import OUTPUT_FILE, STDERR_FILE, append_run_event, tail_text, write_run
from teamdeck.store.workspace import Workspace

TAIL_LINES = 20
TAIL_CHARS = 2000


def new_run_id(ws: Workspace) -> str:
    """``r-<ulid>`` in lower case: unique, sortable by creation."""
    return "r-" + new_ulid(ws.clock()).lower()


def runner_ref() -> RunnerRef:
    pid = os.getpid()
    return RunnerRef(pid=pid, host=socket.gethostname(), started=process_started(pid))


@dataclass
class Execution:
    """A run in progress (see the module).

    Attributes:
        stop_reason: set when the run is being stopped on purpose (a person, an approved
            shutdown, the runner ending): it ends as ``stopped`` and is not retried.
    """

    ws: Workspace
    record: RunRecord
    request: RunRequest
    runtime: Runtime
    keys: frozenset[str]
    identity: Identity | None = None
    process: asyncio.subprocess.Process | None = None
    stop_reason: str | None = None
    timed_out: bool = False
    started_mono: float = field(default_factory=time.monotonic)
    stopping: asyncio.Task[str] | None = None
    ended_at: str | None = None
    """When its end was seen to have come (a run that ended while no runner watched:
    adoption.py); None: when :meth:`finish` records it."""

    def event(self, type_: str, **fields: object) -> None:
        moment = self.ws.clock()
        record = {"id": new_ulid(moment), "type": type_, "at": iso(moment), **fields}
        append_run_event(self.ws, self.record, record)

    def save(self) -> None:
        write_run(self.ws, self.record)

    def create(self) -> None:
        """Record the run before anything starts: its messages.json, then its run.yaml.
        A run on disk always has the messages it was woken for, so a run the runner lost
        before its agent started is retried with them (F25); a messages.json without a
        run.yaml is no run (the member is woken again: its messages are not owed)."""
        messages = [message.to_json() for message in self.request.messages]
        ensure_dir(self.request.run_dir)
        atomic_replace(self.request.messages_file, dumps_json(messages, indent=1).encode(), crash_prefix="run")
        self.save()

    def remaining(self) -> float:
        """Seconds left before the timeout (from the recorded start: an adopted run keeps its deadline)."""
        started = self.record.startedAt or self.record.createdAt
        elapsed = (self.ws.clock() - parse_iso(started)).total_seconds()
        return max(0.0, self.request.config.timeout_s - elapsed)

    async def start(self) -> None:
        """Build and spawn the process and record it (after :meth:`create`).

        Raises:
            TeamdeckError, OSError: it could not start (the caller records it with :meth:`finish`).
        """
        launch = self.runtime.launch(self.request)
        if not launch.marks_read:
            self._give_back()
        run_dir = self.request.run_dir
        self.process = await spawn(launch, run_dir / OUTPUT_FILE, run_dir / STDERR_FILE)
        pid = self.process.pid
        self.identity = Identity(pid, process_started(pid))
        self.record = self.record.model_copy(
            update={
                "argv": list(launch.argv),
                "cwd": str(launch.cwd),
                "pid": pid,
                "processStarted": self.identity.started,
                "startedAt": iso(self.ws.clock()),
                "sessionId": launch.session_id or self.record.sessionId,
            }
        )
        self.save()
        self.event("started", pid=pid, argv=list(launch.argv))
        if launch.marks_read and self.keys:
            files = team_format(self.ws, self.record.team)
            inbox = files.inbox(self.ws, self.record.team, self.record.member)
            marked = files.mark_read(inbox, lambda raw: _key(raw) in self.keys)
            self.event("marked-read", count=len(marked))

    def _give_back(self) -> None:
        """Before an agent that reads its own inbox starts: the run's messages that an
        earlier attempt read (a retry carries them) are marked unread again, so its
        ``inbox --inject`` (or MCP ``read_inbox``) delivers them once more (F22). A
        run's messages stay its own until a run that received them succeeds."""
        if not self.keys:
            return
        files = team_format(self.ws, self.record.team)
        inbox = files.inbox(self.ws, self.record.team, self.record.member)
        marked = files.mark_unread(inbox, lambda raw: _key(raw) in self.keys)
        if marked:
            self.event("marked-unread", count=len(marked))

    async def wait(self) -> None:
        """Until the process ended; past the timeout it is stopped (``timeout``). Then
        what it left running is ended too (F21: process.end_leftovers), before the run
        is recorded as ended."""
        assert self.identity is not None
        if not await wait_gone(self.identity, self.process, self.remaining()):
            self.timed_out = True
            self.event("timeout", afterS=self.request.config.timeout_s)
            await self.stop(self.timeout_error)
        await self.end_leftovers()

    @property
    def timeout_error(self) -> str:
        """What a run stopped at its timeout says: that it timed out, and after how long."""
        return f"timed out after {self.request.config.timeout_s:g} s"

    async def end_leftovers(self) -> None:
        """End what the run left running (process.end_leftovers): its process group (its
        recorded pid's) and every process whose environment names the run."""
        pgid = self.identity.pid if self.identity is not None else self.record.pid
        left = await end_leftovers(pgid, self.request.workspace, self.record.id, self.request.config.grace_s)
        if left:
            self.event("leftovers-ended", count=left)

    async def stop(self, reason: str) -> str:
        """SIGTERM the group, ``grace_s``, SIGKILL; once, however often it is asked."""
        if self.identity is None:
            self.stop_reason = self.stop_reason or reason
            return "gone"
        if self.stopping is None:
            if not self.timed_out:
                self.stop_reason = reason
            self.event("stop-requested", reason=reason)
            self.stopping = asyncio.ensure_future(stop_group(self.identity, self.process, self.request.config.grace_s))
        return await self.stopping

    def finish(self, error: str | None = None) -> RunRecord:
        """Record how the run ended (``error``: why it could not start)."""
        exit_status = self.process.returncode if self.process is not None else None
        try:
            outcome = self.runtime.outcome(self.request, exit_status) if error is None else Outcome()
        except Exception as err:  # noqa: BLE001 - a runtime's parse bug must not lose the run's end
            outcome = Outcome(error=f"could not read the run's output: {err}")
        kind = _outcome_kind(self, exit_status, error or outcome.error)
        cost = read_cost(outcome.cost_usd, "the runtime's cost_usd")  # a runtime plugged in may not check it
        left = {item.key for item in unread(self.ws, self.record.team, self.record.member)}
        self.record = self.record.model_copy(
            update={
                "state": "ended",
                "endedAt": self.ended_at or iso(self.ws.clock()),
                "exitStatus": exit_status,
                "outcome": kind,
                "error": error
                or (self.timeout_error if self.timed_out else None)
                or outcome.error
                or self.stop_reason
                or (_exit_error(exit_status) if kind == "failed" else None),
                "sessionId": outcome.session_id or self.record.sessionId,
                "usage": dict(outcome.usage) if outcome.usage is not None and all_finite(outcome.usage) else None,
                "costUsd": cost.usd,
                "costProblem": outcome.cost_problem or cost.problem,
                "result": outcome.result,
                "unreadAfter": len(self.keys & left),
            }
        )
        self.save()
        unreadable = {"costProblem": self.record.costProblem} if self.record.costProblem is not None else {}
        self.event("ended", outcome=kind, exitStatus=exit_status, costUsd=self.record.costUsd, **unreadable)
        return self.record

    def tail(self) -> str:
        """The last lines of the run's output and errors (for the give-up decision)."""
        parts = []
        for name in (OUTPUT_FILE, STDERR_FILE):
            path = self.request.run_dir / name
            text = self.runtime.read_log(path, TAIL_CHARS) if name == OUTPUT_FILE else tail_text(path, TAIL_CHARS)
            lines = [line for line in text.splitlines() if line.strip()]
            if lines:
                parts.append(f"--- {name}\n" + "\n".join(lines[-TAIL_LINES:]))
        return "\n".join(parts)[-TAIL_CHARS:]


def _key(raw: dict[str, object]) -> str:
    return message_key(str(raw.get("from", "")), str(raw.get("timestamp", "")), str(raw.get("text", "")))


def _exit_error(exit_status: int | None) -> str | None:
    if exit_status is None:
        return None
    return f"killed by signal {-exit_status}" if exit_status < 0 else f"exit status {exit_status}"


def _outcome_kind(run: Execution, exit_status: int | None, error: str | None) -> RunOutcome:
    if run.timed_out:
        return "timeout"
    if run.stop_reason is not None:
        return "stopped"
    if error is not None:
        return "failed"
    if exit_status is None:
        return "unknown"
    return "succeeded" if exit_status == 0 else "failed"


def new_record(ws: Workspace, request: RunRequest, runtime: str, queued_at: float, retry_of: str | None) -> RunRecord:
    """The run.yaml written before the process starts (state ``running``, no pid yet).
    ``queued_at`` (epoch s, when the wake arrived) is recorded on the workspace's clock,
    as every other moment of the run is (a test's fixed clock is not the wall clock)."""
    ensure_dir(request.run_dir)
    now = ws.clock()
    return RunRecord(
        id=request.run_id,
        team=request.team,
        member=request.member,
        runtime=runtime,
        trigger=request.trigger,
        attempt=request.attempt,
        retryOf=retry_of,
        messages=[_run_message(item) for item in _unread_of(request)],
        runner=runner_ref(),
        state="running",
        createdAt=iso(now),
        queuedAt=iso(now - timedelta(seconds=max(0.0, time.time() - queued_at))),
        sessionId=request.session_id,
    )


def _unread_of(request: RunRequest) -> list[Unread]:
    return [Unread(message_key(m.sender, m.timestamp, m.text), m) for m in request.messages]


def _run_message(item: Unread) -> RunMessage:
    return RunMessage.model_validate(
        {"from": item.message.sender, "timestamp": item.message.timestamp, "kind": item.message.kind, "key": item.key}
    )
