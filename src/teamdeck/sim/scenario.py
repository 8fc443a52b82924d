"""What the outside world does during ``teamdeck demo``: the lead's side, on a timer.

The demo's agents act only inside runs the runner started (teamdeck/sim/turn.py), and
the runner starts a run only when a member has work. In a real team most work comes
from the lead (Claude Code on the person's behalf) or from the person: a teammate
created, a task assigned, a question asked. The scenario plays that side and only that
side: it writes what the lead writes, through the same protocol functions, and never
acts as a teammate. What follows in each case is the agent's own doing, in its run.

At these moments (seconds at ``speed`` 1; ``speed`` 10 makes everything 10x sooner):

- :data:`WORKERS_AT`, then every :data:`WORKER_EVERY`: the lead creates each worker
  of an active task that has written no final.json and is no team member yet (the demo:
  search-index's ``indexer``, then ``ranker``) as a member of the task's team, with a
  prompt (what ``create_agent`` does); the runner starts it (trigger ``created``) and it
  works, then writes its final.json (``indexer`` blocks with questions).
- :data:`ASSIGNMENTS`: the lead assigns ``bench-runner`` its pending benchmark (it
  answers with a plan for approval) and ``profiler`` a profiling task (it asks
  permission to run ``perf record`` and its run waits for the answer).
- :data:`CRASH_CHECK_AT`: the lead asks ``log-miner`` how it is going; its process
  crashes at every start, so the runner retries it once, then asks a person.
- every :data:`CHATTER_S`: the lead's status check to a random teammate with nothing
  going (active, run by the runner, no run live, nothing unread); it answers with its
  progress and goes idle.

Given a seed, the order and content of what the scenario writes is fixed; when the
agents answer depends on the runner and the machine.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from functools import partial

from teamdeck.errors import TeamdeckError
from teamdeck.model.team import LEAD_NAME
from teamdeck.protocol.coordination.delegation import worker_id_for
from teamdeck.protocol.task.taskfile import load_task, task_ids
from teamdeck.protocol.team.messaging.reading import list_inbox
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, list_teams, read_team
from teamdeck.runtime.config import load_agents
from teamdeck.sim.acts import assign_task
from teamdeck.sim.engine import Scheduler
from teamdeck.sim.outputs import output_status
from teamdeck.sim.personas import STATUS_CHECK, persona_for
from teamdeck.sim.turn import ACTIVE_TASK_STATES
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.runs import member_runs

LEAD_ACTOR = f"agent:{LEAD_NAME}"

WORKERS_AT = 3.0
WORKER_EVERY = 6.0
CRASH_CHECK_AT = 20.0
CHATTER_S = (15.0, 30.0)


@dataclass(frozen=True)
class Assignment:
    """A task the lead assigns a member (a ``task_assignment`` in its inbox)."""

    at: float
    member: str
    task_id: str
    subject: str
    description: str


ASSIGNMENTS = (
    Assignment(
        8.0,
        "bench-runner",
        "2",
        "Benchmark the rebuilt search index",
        "Compare p50/p99 latency and recall of the new index with the current one.",
    ),
    Assignment(
        10.0,
        "profiler",
        "7",
        "Profile the search benchmark",
        "Record a CPU profile of the search benchmark and name the hottest path.",
    ),
)


@dataclass(frozen=True)
class PendingWorker:
    """A worker of an active task that has written no final.json and is no member."""

    team: str
    task_id: str
    title: str
    agent_id: str


@dataclass
class Scenario:
    """The lead's side of the demo (see the module).

    Args:
        ws: the workspace (its clock stamps what the lead writes).
        seed: fixes who gets a status check, and when.
        speed: scenario seconds per real second.

    Attributes:
        scheduler: the clockwork (``history`` and ``errors`` say what happened).
    """

    ws: Workspace
    seed: int = 0
    speed: float = 1.0
    scheduler: Scheduler = field(default_factory=Scheduler)

    def __post_init__(self) -> None:
        if self.speed <= 0:
            raise ValueError("speed must be positive")
        self.ws = self.ws._replace(actor=LEAD_ACTOR)
        self.rng = random.Random(self.seed)
        for index, worker in enumerate(pending_workers(self.ws)):
            at = WORKERS_AT + WORKER_EVERY * index
            self.scheduler.after(at, f"create {worker.team}/{worker.agent_id}", partial(self._create, worker))
        for assignment in ASSIGNMENTS:
            self.scheduler.after(assignment.at, f"assign {assignment.member}", partial(self._assign, assignment))
        self.scheduler.after(CRASH_CHECK_AT, "check log-miner", partial(self._check_in_on, "log-miner"))
        self.scheduler.after(self.rng.uniform(*CHATTER_S), "chatter", self._chatter)

    def run(self, stop: threading.Event, *, duration: float | None = None) -> None:
        """Play it live on this thread until ``stop`` is set or ``duration`` real seconds pass."""
        self.scheduler.run(stop, speed=self.speed, duration=duration)

    def start(self, stop: threading.Event, *, duration: float | None = None) -> threading.Thread:
        """Play it live on a daemon thread; set ``stop`` and join the thread to end it."""
        thread = threading.Thread(
            target=self.run, args=(stop,), kwargs={"duration": duration}, name="teamdeck-demo-scenario", daemon=True
        )
        thread.start()
        return thread

    # --- what the lead does ---------------------------------------------------------

    def _create(self, worker: PendingWorker) -> None:
        prompt = (
            f"You are worker {worker.agent_id} of task {worker.task_id} ({worker.title}). "
            "Do your part, then write your final.json."
        )
        add_member(self.ws, worker.team, worker.agent_id, prompt=prompt)

    def _assign(self, assignment: Assignment) -> None:
        team = self._team_of(assignment.member)
        if team is not None:
            assign_task(
                self.ws, team, assignment.member, assignment.task_id, assignment.subject, assignment.description
            )

    def _check_in_on(self, member: str) -> None:
        team = self._team_of(member)
        if team is not None:
            self._status_check(team, member)

    def _status_check(self, team: str, member: str) -> None:
        text = "How is it going? One line, please."
        send_message(self.ws, team, member, text, summary=STATUS_CHECK, sender=LEAD_NAME)

    def _chatter(self) -> None:
        self.scheduler.after(self.rng.uniform(*CHATTER_S), "chatter", self._chatter)
        idle = self._idle_teammates()
        if idle:
            self._status_check(*self.rng.choice(idle))

    # --- who is who ---------------------------------------------------------------------

    def _team_of(self, member: str) -> str | None:
        """The team in which ``member`` is an active teammate, if any."""
        return next((team for team, name in self._teammates() if name == member), None)

    def _teammates(self) -> list[tuple[str, str]]:
        """Every active, non-lead member of every readable team, by team and name."""
        found: list[tuple[str, str]] = []
        for team in list_teams(self.ws):
            try:
                config = read_team(self.ws, team)
            except TeamdeckError:
                continue
            found += [
                (team, member.name)
                for member in config.members
                if member.isActive and not config.is_lead(member.name) and member.name != LEAD_NAME
            ]
        return sorted(found)

    def _idle_teammates(self) -> list[tuple[str, str]]:
        """Teammates a status check would not disturb: run by the runner, not crashed, no
        run live, nothing unread."""
        agents = load_agents(self.ws.root)
        return [
            (team, member)
            for team, member in self._teammates()
            if agents.resolve(team, member) is not None
            and not persona_for(member).crashed
            and member_runs(self.ws, team, member).live is None
            and not list_inbox(self.ws, team, member, unread_only=True)
        ]


def pending_workers(ws: Workspace) -> list[PendingWorker]:
    """The workers of active tasks with a team that have written no final.json and are
    no member of that team (no delegation names one, no member has the worker's id), by
    task then worker order."""
    pending: list[PendingWorker] = []
    for task_id in task_ids(ws):
        try:
            task = load_task(ws, task_id)
            team = task.team
            roster = read_team(ws, team) if team else None
        except TeamdeckError:
            continue
        if team is None or roster is None or task.state not in ACTIVE_TASK_STATES:
            continue
        members = {_worker_id(member.name) for member in roster.members}
        pending.extend(
            PendingWorker(team, task.id, task.title, worker.id)
            for worker in task.workers
            if not worker.member and worker.id not in members and output_status(ws, task.id, worker.id) is None
        )
    return pending


def _worker_id(name: str) -> str | None:
    try:
        return worker_id_for(name)
    except TeamdeckError:
        return None
