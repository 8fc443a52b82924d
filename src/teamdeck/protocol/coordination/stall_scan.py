"""Which members leave assigned work untouched, and what is due about it (a read).

A piece of work is a delegation a member has not answered: a ``working`` task with the
member as a worker (implementor or verifier) whose report is missing, or older than the
task's last verdict (after NEEDS_CHANGES or a retry the member owes a new one). Its
last activity is the latest of: the assignment, the last verdict, a file the worker
wrote under its agent directory, a person's decision on an earlier stall. A nudge is
no activity: it is what the member is asked to answer. Work on Gitea (an issue
``working``, a discussion without the agent's comment) is owed the same way and put on
the same schedule by protocol/forge/stalls.py (:func:`schedule`); protocol/effects/owed.py lists
both.

With ``T = stallAfterSeconds`` and ``b = backoff``, the waits are ``T, T·b, T·b², ...``:
nudge 1 is due after ``T`` idle, nudge 2 ``T·b`` after nudge 1, and ``T·b^n`` after the
last nudge (``nudges``), the decision. Each wait counts from the nudge before it, so a
member found idle for hours still has its nudge's wait to answer. The schedule is
computed from the files each time, so a restart loses nothing and a step run twice
sends nothing twice.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from teamdeck.clock import parse_iso
from teamdeck.errors import TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.settings import AutoworkSettings
from teamdeck.model.task import Gate, Task, Worker
from teamdeck.model.team import TeamConfig, decode_text
from teamdeck.protocol.task.taskfile import load_task, read_events, task_ids
from teamdeck.protocol.task.worker_outputs import read_worker_outputs
from teamdeck.protocol.team.messaging.reading import list_inbox
from teamdeck.store.workspace import Workspace

STALL_GATE = "member-stalled"
"""The kind of the gate a stall opens for a person (protocol/effects/stall_gates.py answers it)."""
NUDGED = "member.nudged"
"""The task event a nudge records (protocol/coordination/nudges.py)."""
Due = Literal["nothing", "nudge", "decision", "decided-pending"]
WorkKind = Literal["task", "issue", "discussion"]
"""What is owed: a task's report, an assigned Gitea issue's progress, a discussion's comment."""


@dataclass(frozen=True)
class Stall:
    """A member's untouched piece of work.

    Attributes:
        task_id, team, worker, member: whose work, on what.
        why: what the member has not done (``has not read its assignment``...).
        since: its last activity.
        idle_s: seconds since then.
        nudges: nudges sent since then.
        due: what the schedule asks for now (``nothing``: still within its wait).
        gate_id: the stall decision waiting for a person, if one does.
        next_at_s: idle seconds at which the next step is due (None: a decision waits).
        kind: what the work is (:data:`WorkKind`); for Gitea work ``task_id`` is the task
            that follows it in teamdeck once it stalls (protocol/forge/stalls.py), which
            holds the nudges and the decision.
        subject: how people name the work (``t1``, ``acme/quant#201``).
    """

    task_id: str
    team: str
    worker: str
    member: str
    why: str
    since: datetime
    idle_s: float
    nudges: int
    due: Due
    gate_id: str | None
    next_at_s: float | None
    kind: WorkKind = "task"
    subject: str = ""

    @property
    def stalled(self) -> bool:
        """Whether the member counts as stalled (idle past the first wait, or asked about)."""
        return self.due != "nothing" or self.nudges > 0 or self.gate_id is not None

    @property
    def line(self) -> str:
        """One line for people: ``bob has not reported on t1 for 40 min, 2 nudges``,
        ``zhaoyun-data has not answered acme/quant#201 for 40 min``."""
        told = f", {self.nudges} nudge{'s' if self.nudges != 1 else ''}" if self.nudges else ""
        waits = f"; decision {self.gate_id} waits" if self.gate_id else ""
        return f"{self.member} {self.why} {self.subject or self.task_id} for {span(self.idle_s)}{told}{waits}"


def span(seconds: float) -> str:
    """A wait as the issue says it: ``45 s``, ``40 min``, ``3 h 5 min``."""
    whole = int(seconds)
    if whole < 120:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min"
    hours, minutes = divmod(whole // 60, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def owed_tasks(ws: Workspace, settings: AutoworkSettings, now: datetime) -> list[Stall]:
    """Every delegation owed, stalled or not yet (task id order); unreadable tasks are
    skipped (their problems are reported elsewhere)."""
    found: list[Stall] = []
    for task_id in task_ids(ws):
        try:
            task = load_task(ws, task_id)
        except TeamdeckError:
            continue
        if task.state != "working" or task.team is None:
            continue
        events: list[Event] | None = None
        for worker in owing_workers(ws, task):
            if events is None:
                events = read_events(ws, task.id)
            stall = _stall_of(ws, task, worker, events, settings, now)
            if stall is not None:
                found.append(stall)
    return found


def owing_workers(ws: Workspace, task: Task) -> list[Worker]:
    """The task's delegated workers (not its coordinator) that owe a report (none on a
    task that follows Gitea work: the issue says what is owed, protocol/forge/stalls.py)."""
    if getattr(task, "forgeIssue", None) is not None:
        return []
    results = {result.agent_id: result for result in read_worker_outputs(ws, task.id) if not result.ignored}
    since = task.verification.appliedAt if task.verification and task.verification.appliedAt else None
    owing = []
    for worker in task.workers:
        if worker.member is None or worker.role == "coordinator":
            continue
        result = results.get(worker.id)
        if result is None or result.status in ("pending", "invalid"):
            owing.append(worker)
        elif since is not None and result.output is not None and result.output.finishedAt:
            if parse_iso(result.output.finishedAt) <= parse_iso(since):
                owing.append(worker)
    return owing


def _stall_of(
    ws: Workspace, task: Task, worker: Worker, events: list[Event], settings: AutoworkSettings, now: datetime
) -> Stall | None:
    assert task.team is not None and worker.member is not None
    moments = [parse_iso(worker.assignedAt)] if worker.assignedAt else []
    if task.verification and task.verification.appliedAt:
        moments.append(parse_iso(task.verification.appliedAt))
    moments += _file_times(ws, task.id, worker.id)
    gates = [gate for gate in task.gates if gate.kind == STALL_GATE and gate.agentInstance == worker.id]
    moments += [parse_iso(gate.decidedAt) for gate in gates if gate.decidedAt]
    if not moments:
        return None
    stall = schedule(
        Stall(task.id, task.team, worker.id, worker.member, "", max(moments), 0.0, 0, "nothing", None, None),
        events,
        gates,
        settings,
        now,
    )
    return replace(stall, why=_why(ws, task, worker)) if stall.stalled else stall  # its inbox is read only when said


def schedule(owed: Stall, events: list[Event], gates: list[Gate], settings: AutoworkSettings, now: datetime) -> Stall:
    """``owed`` (its ``since`` set: the last activity) with what the schedule asks now: the
    nudges counted from ``events`` (``member.nudged`` of its worker since then), the open
    decision among ``gates`` (its worker's stall gates), and what is due (see the module)."""
    since = owed.since
    idle = (now - since).total_seconds()
    nudged = [
        parse_iso(event.ts)
        for event in events
        if event.type == NUDGED and event.payload.get("worker") == owed.worker and parse_iso(event.ts) >= since
    ]
    nudges = len(nudged)
    open_gate = next((gate.id for gate in gates if gate.state == "blocked"), None)
    due: Due = "decided-pending"
    next_at: float | None = None
    if open_gate is None:
        # each wait counts from the last nudge: a member found idle for hours (nobody was
        # supervising) still gets its nudge's whole wait before a person is asked
        wait = settings.stallAfterSeconds * settings.backoff ** min(nudges, settings.nudges)
        next_at = ((max(nudged) - since).total_seconds() if nudged else 0.0) + wait
        due = "nothing" if idle < next_at else "nudge" if nudges < settings.nudges else "decision"
    return replace(owed, idle_s=idle, nudges=nudges, due=due, gate_id=open_gate, next_at_s=next_at)


def _file_times(ws: Workspace, task_id: str, worker_id: str) -> list[datetime]:
    """When the worker last wrote anything under its agent directory (progress notes, a
    draft): activity, even without a report."""
    from datetime import UTC

    root = ws.agents_dir(task_id) / worker_id
    times = []
    try:
        for path in [root, *root.rglob("*")]:
            if not path.is_symlink():
                times.append(datetime.fromtimestamp(path.stat().st_mtime, UTC))
    except OSError:
        pass
    return times


def _why(ws: Workspace, task: Task, worker: Worker) -> str:
    """``has not read its assignment of`` (still unread in the inbox), else ``has not
    reported on``."""
    assert task.team is not None and worker.member is not None
    try:
        unread = list_inbox(ws, task.team, worker.member, unread_only=True)
    except TeamdeckError:
        unread = []
    for entry in unread:
        if entry.message is not None and getattr(decode_text(entry.message.text), "taskId", None) == task.id:
            return "has not read its assignment of"
    return "has not reported on"


def crafters_of(config: TeamConfig) -> list[str]:
    """Who may be given a task to do, in roster order: never the lead, a coordinator or a
    gate (seed 002's roles); when the team names crafters, only them."""
    from teamdeck.protocol.coordination.roles import role_of

    able = [(m.name, role_of(config, m.name)) for m in config.members if not config.is_lead(m.name)]
    able = [(name, role) for name, role in able if role in ("crafter", "none")]
    crafters = [name for name, role in able if role == "crafter"]
    return crafters or [name for name, _role in able]


def busy_on_tasks(ws: Workspace, team: str) -> set[str]:
    """The team's members (lower-cased) that owe a report on a working task."""
    busy: set[str] = set()
    for task_id in task_ids(ws):
        try:
            task = load_task(ws, task_id)
        except TeamdeckError:
            continue
        if task.team == team and task.state == "working":
            busy |= {worker.member.lower() for worker in owing_workers(ws, task) if worker.member}
    return busy
