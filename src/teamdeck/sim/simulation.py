"""Simulated agents writing into a workspace the way real ones do.

What the simulation does (simulated seconds; divide by ``speed`` for real time):

- **Teammates** (every active, non-lead member of every team, except those whose
  persona says they crashed) check their inbox every ``poll_s``. When something is
  unread, a turn starts a moment later (1-3 s): the messages are taken (marked read in
  one locked write, shutdown requests first, as Claude Code injects them), each is
  answered — a task assignment or a plain message with a short reply, a shutdown
  request as the persona says (approve: ``shutdown_approved`` and the member goes
  offline; reject: ``shutdown_rejected`` with a reason; ignore: silence), a plan
  approval response by starting work or by sending a revised plan — and the turn ends
  with an idle notification, as Claude Code sends one at the end of every turn.
- **Plans**: a teammate whose persona carries a plan sends a plan approval request
  :data:`PLAN_AT` seconds in.
- **Permissions**: a teammate whose persona names a tool asks the lead's permission to
  use it :data:`PERMISSION_AT` seconds in (a decision in the queue), and says what it
  does with the answer.
- **Workers**: every worker listed in a ``working`` task that has not written its
  final.json yet writes one, :data:`FIRST_OUTPUT_AT` seconds in and then one every
  :data:`OUTPUT_EVERY` seconds: the first blocked with questions, the next completed,
  alternating. A worker that is a teammate also tells the lead and goes idle.
- **Gates**: when a person decides the gate of a blocked worker, that worker writes a
  new final.json a few seconds later (completed after an approval, failed after a
  rejection).
- **Chatter**: every 15-30 s a random teammate reports progress and goes idle.

Everything goes through the protocol functions (:mod:`teamdeck.sim.acts`,
:mod:`teamdeck.sim.outputs`); nothing is written by hand. Given a seed, the sequence
of actions is fixed; only what a person does while it runs changes it.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from functools import partial

from teamdeck.errors import TeamdeckError
from teamdeck.model.claude import LEAD_NAME, PermissionResponse, PlanApprovalResponse, decode_text
from teamdeck.model.task import Task
from teamdeck.protocol.messaging.handshakes import respond_shutdown
from teamdeck.protocol.messaging.injection import Injected
from teamdeck.protocol.messaging.reading import list_inbox
from teamdeck.protocol.taskfile import load_task, task_ids
from teamdeck.protocol.teams import list_teams, read_team
from teamdeck.sim.acts import as_member, ask_permission, ask_plan_approval, go_idle, take_messages, tell_lead
from teamdeck.sim.engine import Scheduler
from teamdeck.sim.outputs import write_final_output
from teamdeck.sim.personas import PROGRESS, QUESTIONS, RESULTS, Persona, persona_for
from teamdeck.store.files import read_optional
from teamdeck.store.loaders import parse_json
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line

POLL_S = 1.0
"""How often a teammate looks at its inbox."""
THINK_S = (1.0, 3.0)
"""How long after noticing unread messages a teammate's turn starts (shutdown replies
arrive this long after the request is seen)."""
PLAN_AT = 10.0
PERMISSION_AT = 12.0
FIRST_OUTPUT_AT = 8.0
OUTPUT_EVERY = 6.0
GATE_CHECK_S = 2.0
RESUME_AFTER_S = 3.0
CHATTER_S = (15.0, 30.0)


@dataclass
class Teammate:
    """A simulated member of a team.

    Attributes:
        team: its team.
        name: its member name.
        persona: how it behaves.
        busy: a turn is scheduled (no second one is).
        gone: it shut down: it does nothing any more.
    """

    team: str
    name: str
    persona: Persona
    busy: bool = False
    gone: bool = False
    ignored_shutdown: bool = False
    """It left a shutdown request unanswered (persona ``approve-when-resent``)."""

    @property
    def label(self) -> str:
        return f"{self.team}/{self.name}"


@dataclass(frozen=True)
class PendingWorker:
    """A worker of a working task that has not written its final.json yet."""

    task_id: str
    title: str
    agent_id: str
    member: str | None
    team: str | None


@dataclass
class Simulation:
    """Scripted agents for one workspace; see the module docstring.

    Args:
        ws: the workspace to write into (its clock stamps everything written).
        seed: fixes every choice (who chatters, which words, which delays).
        speed: simulated seconds per real second when running live.

    Attributes:
        teammates: the simulated team members.
        scheduler: the clockwork (``history`` and ``errors`` say what happened).
    """

    ws: Workspace
    seed: int = 0
    speed: float = 1.0
    teammates: list[Teammate] = field(default_factory=list)
    scheduler: Scheduler = field(default_factory=Scheduler)

    def __post_init__(self) -> None:
        if self.speed <= 0:
            raise ValueError("speed must be positive")
        self.rng = random.Random(self.seed)
        self._followed: set[str] = set()
        self.teammates = discover_teammates(self.ws)
        self._script()

    # --- running ----------------------------------------------------------------
    def advance(self, until: float) -> None:
        """Run everything due up to ``until`` simulated seconds (tests call this directly)."""
        self.scheduler.advance(until)

    def run(self, stop: threading.Event, *, duration: float | None = None) -> None:
        """Run live on this thread until ``stop`` is set or ``duration`` real seconds pass."""
        self.scheduler.run(stop, speed=self.speed, duration=duration)

    def start(self, stop: threading.Event, *, duration: float | None = None) -> threading.Thread:
        """Run live on a daemon thread; set ``stop`` and join the thread to end it."""
        thread = threading.Thread(
            target=self.run, args=(stop,), kwargs={"duration": duration}, name="teamdeck-sim", daemon=True
        )
        thread.start()
        return thread

    # --- the script ---------------------------------------------------------------
    def _script(self) -> None:
        active = [mate for mate in self.teammates if not mate.persona.crashed]
        for index, mate in enumerate(active):
            self.scheduler.after(0.5 + 0.2 * index, f"poll {mate.label}", partial(self._poll, mate))
            if mate.persona.plan:
                self.scheduler.after(PLAN_AT, f"plan {mate.label}", partial(self._ask_plan, mate))
            if mate.persona.permission:
                self.scheduler.after(PERMISSION_AT, f"permission {mate.label}", partial(self._ask_permission, mate))
        for index, worker in enumerate(pending_workers(self.ws)):
            outcome = "blocked" if index % 2 == 0 else "completed"
            self.scheduler.after(
                FIRST_OUTPUT_AT + OUTPUT_EVERY * index,
                f"output {worker.task_id}/{worker.agent_id}",
                partial(self._report, worker, outcome),
            )
        self.scheduler.after(GATE_CHECK_S, "check gates", self._check_gates)
        self.scheduler.after(self.rng.uniform(*CHATTER_S), "chatter", self._chatter)

    def _mate(self, team: str | None, name: str | None) -> Teammate | None:
        """The simulated teammate ``team/name`` if it can still act."""
        return next(
            (
                mate
                for mate in self.teammates
                if mate.team == team and mate.name == name and not mate.gone and not mate.persona.crashed
            ),
            None,
        )

    # --- teammates ----------------------------------------------------------------
    def _poll(self, mate: Teammate) -> None:
        if mate.gone:
            return
        self.scheduler.after(POLL_S, f"poll {mate.label}", lambda: self._poll(mate))
        if not mate.busy and list_inbox(self.ws, mate.team, mate.name, unread_only=True):
            mate.busy = True
            self.scheduler.after(self.rng.uniform(*THINK_S), f"turn {mate.label}", lambda: self._turn(mate))

    def _turn(self, mate: Teammate) -> None:
        """Take the unread messages, answer each, end with an idle notification."""
        try:
            for message in take_messages(self.ws, mate.team, mate.name):
                self._answer(mate, message)
                if mate.gone:
                    return
            go_idle(self.ws, mate.team, mate.name)
        finally:
            mate.busy = False

    def _answer(self, mate: Teammate, message: Injected) -> None:
        if message.kind == "shutdown_request" and message.request_id:
            self._answer_shutdown(mate, message.request_id)
        elif message.kind == "plan_approval_response":
            self._after_plan_review(mate, message)
        elif message.kind == "permission_response":
            answer = decode_text(message.text)
            allowed = isinstance(answer, PermissionResponse) and answer.subtype == "success"
            tell_lead(
                self.ws,
                mate.team,
                mate.name,
                "Permission granted; running it now." if allowed else "Permission denied; I'll find another way.",
                summary="Permission answered",
            )
        elif message.kind == "task_assignment":
            tell_lead(self.ws, mate.team, mate.name, "Picked it up; starting now.", summary="Task picked up")
        elif message.kind == "plain":
            gist = one_line(message.summary or message.text, 60)
            tell_lead(
                self.ws,
                mate.team,
                mate.name,
                f"Got it ({gist}). I'll fold that into what I'm doing.",
                summary="Acknowledged",
            )

    def _answer_shutdown(self, mate: Teammate, request_id: str) -> None:
        answer = mate.persona.shutdown
        if answer == "ignore":
            return
        if answer == "approve-when-resent" and not mate.ignored_shutdown:
            mate.ignored_shutdown = True  # stuck until the person resends it
            return
        approve = answer != "reject"
        respond_shutdown(
            as_member(self.ws, mate.name),
            mate.team,
            request_id,
            approve=approve,
            sender=mate.name,
            reason=None if approve else mate.persona.reject_reason,
        )
        mate.gone = approve

    def _ask_plan(self, mate: Teammate) -> None:
        if self._mate(mate.team, mate.name) is not None and mate.persona.plan:
            ask_plan_approval(
                self.ws,
                mate.team,
                mate.name,
                mate.persona.plan,
                plan_file=f"/home/dev/.claude/plans/{mate.name}-plan.md",
            )

    def _ask_permission(self, mate: Teammate) -> None:
        if self._mate(mate.team, mate.name) is not None and mate.persona.permission:
            tool, description, tool_input = mate.persona.permission
            ask_permission(self.ws, mate.team, mate.name, tool, description, tool_input)

    def _after_plan_review(self, mate: Teammate, response: Injected) -> None:
        """Approved: say so and start; rejected: send the plan again, revised."""
        review = decode_text(response.text)
        if not isinstance(review, PlanApprovalResponse):
            return
        if review.approved:
            tell_lead(self.ws, mate.team, mate.name, "Plan approved; starting with step 1.", summary="Plan approved")
            return
        feedback = one_line(review.feedback or "no feedback", 200)
        plan = (mate.persona.plan or "# Plan\n").rstrip("\n") + f"\n\nRevised after feedback: {feedback}\n"
        ask_plan_approval(self.ws, mate.team, mate.name, plan, plan_file=f"/home/dev/.claude/plans/{mate.name}-plan.md")

    def _chatter(self) -> None:
        self.scheduler.after(self.rng.uniform(*CHATTER_S), "chatter", self._chatter)
        idle = [mate for mate in self.teammates if not (mate.gone or mate.busy or mate.persona.crashed)]
        if not idle:
            return
        mate = self.rng.choice(idle)
        tell_lead(self.ws, mate.team, mate.name, self.rng.choice(PROGRESS), summary="Progress")
        go_idle(self.ws, mate.team, mate.name)

    # --- workers --------------------------------------------------------------------
    def _report(self, worker: PendingWorker, outcome: str) -> None:
        """A pending worker writes its final.json; a teammate worker also tells the lead."""
        if outcome == "blocked":
            questions = self.rng.sample(QUESTIONS, 2)
            write_final_output(
                self.ws,
                worker.task_id,
                worker.agent_id,
                {
                    "status": "blocked",
                    "summary": f"Stopped before finishing '{worker.title}': a person must decide.",
                    "questions": questions,
                    "nextActions": ["Continue once the gate is answered"],
                },
            )
            text = f"{worker.task_id}: blocked, {len(questions)} questions in my final.json."
        else:
            write_final_output(
                self.ws,
                worker.task_id,
                worker.agent_id,
                {"status": "completed", "summary": self.rng.choice(RESULTS), "nextActions": []},
            )
            text = f"{worker.task_id}: done, final.json written."
        mate = self._mate(worker.team, worker.member)
        if mate is not None:
            tell_lead(self.ws, mate.team, mate.name, text, summary=f"{worker.task_id}: {outcome}")
            go_idle(self.ws, mate.team, mate.name)

    def _check_gates(self) -> None:
        """Resume (or stop) every blocked worker whose gate a person decided."""
        self.scheduler.after(GATE_CHECK_S, "check gates", self._check_gates)
        for task_id in task_ids(self.ws):
            try:
                task = load_task(self.ws, task_id)
            except TeamdeckError:
                continue  # a broken task.yaml is the person's to see, not the workers'
            decided = [
                gate
                for gate in task.gates
                if gate.kind == "worker-blocked"
                and gate.state != "blocked"
                and gate.agentInstance
                and f"{task_id}/{gate.id}" not in self._followed
            ]
            if not decided:
                continue
            for gate in decided:
                self._followed.add(f"{task_id}/{gate.id}")
                agent = gate.agentInstance
                if agent is not None and output_status(self.ws, task_id, agent) == "blocked":
                    self.scheduler.after(
                        RESUME_AFTER_S,
                        f"resume {task_id}/{agent}",
                        partial(self._resume, task, agent, gate.state, gate.note),
                    )

    def _resume(self, task: Task, agent_id: str, decision: str, note: str | None) -> None:
        if decision == "approved":
            output = {
                "status": "completed",
                "summary": f"Resumed with the answers in human-notes.md. {self.rng.choice(RESULTS)}",
            }
        else:
            output = {
                "status": "failed",
                "summary": f"Stopped: the gate was rejected ({one_line(note or 'no note', 200)}).",
            }
        write_final_output(self.ws, task.id, agent_id, {**output, "nextActions": []})


def discover_teammates(ws: Workspace) -> list[Teammate]:
    """Every active, non-lead member of every readable team, sorted by team and name."""
    mates: list[Teammate] = []
    for team in list_teams(ws):
        try:
            config = read_team(ws, team)
        except TeamdeckError:
            continue
        mates.extend(
            Teammate(team, member.name, persona_for(member.name))
            for member in config.members
            if member.isActive and not config.is_lead(member.name) and member.name != LEAD_NAME
        )
    return sorted(mates, key=lambda mate: (mate.team, mate.name))


def pending_workers(ws: Workspace) -> list[PendingWorker]:
    """The workers of ``working`` tasks with no final.json yet, by task then worker order."""
    pending: list[PendingWorker] = []
    for task_id in task_ids(ws):
        try:
            task = load_task(ws, task_id)
        except TeamdeckError:
            continue
        if task.state != "working":
            continue
        pending.extend(
            PendingWorker(task.id, task.title, worker.id, worker.member, task.team)
            for worker in task.workers
            if output_status(ws, task_id, worker.id) is None
        )
    return pending


def output_status(ws: Workspace, task_id: str, agent_id: str) -> str | None:
    """The ``status`` a worker's final.json states (whatever it is), ``"unreadable"``,
    or None when it has written none. Full validation is the join's job; a worker only
    needs to know whether it said it was blocked."""
    try:
        data = read_optional(ws.final_output(task_id, agent_id))
        if data is None:
            return None
        value = parse_json(data, ws.rel(ws.final_output(task_id, agent_id)))
    except TeamdeckError:
        return "unreadable"
    status = value.get("status") if isinstance(value, dict) else None
    return status if isinstance(status, str) else "unreadable"
