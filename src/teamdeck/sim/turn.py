"""One turn of a demo agent: what a teammate does in one run the runner started.

The runner wakes a member when its inbox holds unread work (docs/protocol.md, "Running
the agents"), and the demo's agent program (teamdeck/sim/agent.py) plays one turn:

1. It takes its unread messages (marked read in one locked write, shutdown requests
   first, as Claude Code injects them) and thinks a moment (:data:`THINK_S`: the
   roster shows the run ▶ meanwhile).
2. It answers each as its persona (teamdeck/sim/personas.py) says:
   a ``shutdown_request`` is approved (``shutdown_approved``: the member is offline and
   the turn ends there, with no idle notification), rejected with a reason, ignored, or
   approved only when it is not the first request the member ever received (the stuck
   shutdown a person must resend); a ``task_assignment`` makes a persona with a plan send
   a ``plan_approval_request``, one with a tool ask the lead's permission and wait (up to
   :data:`PERMISSION_WAIT_S`, still in the same run) for the answer, anyone else say it
   picked the task up; a ``plan_approval_response`` is followed by "starting" or by a
   revised plan; a ``permission_response`` by what it does with it; the lead's status
   check (summary :data:`~teamdeck.sim.personas.STATUS_CHECK`) by a progress line; any
   other message by "Got it".
3. It does its duties as a worker of a task (named by its delegation, or by its worker
   id): after "working" a few seconds (:data:`WORK_S`) it writes the final.json it has
   not written yet (blocked with two questions, or completed: its persona says), and,
   when a person decided the gate its blocked output raised, the one that follows
   (completed after an approval, failed after a rejection); either way it tells the lead.
   The message telling it a gate's decision (protocol/coordination/delegation.py) is what woke it.
4. It ends with an idle notification, as Claude Code does at the end of every turn.

Everything is written through protocol functions (teamdeck/sim/acts.py, outputs.py), as
the member. A "Got it" to a message is left out when the turn also reports work: the
report says more.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from teamdeck.errors import TeamdeckError
from teamdeck.model.task import Task, Worker
from teamdeck.model.team import PermissionResponse, PlanApprovalResponse, decode_text
from teamdeck.protocol.coordination.delegation import worker_id_for
from teamdeck.protocol.task.taskfile import load_task, task_ids
from teamdeck.protocol.team.messaging.handshake_writes import respond_shutdown
from teamdeck.protocol.team.messaging.injection import Injected
from teamdeck.protocol.team.messaging.reading import list_inbox
from teamdeck.sim.acts import as_member, ask_permission, ask_plan_approval, go_idle, take_messages, tell_lead
from teamdeck.sim.outputs import output_status, write_final_output
from teamdeck.sim.personas import PROGRESS, QUESTIONS, RESULTS, STATUS_CHECK, persona_for
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line

THINK_S = (1.0, 3.0)
"""How long a turn thinks after reading its messages (seconds at speed 1)."""
WORK_S = (4.0, 7.0)
"""How long a worker works before it writes its final.json."""
PERMISSION_WAIT_S = 30.0
"""How long a run that asked permission waits for the answer before its turn ends (the
answer, when it comes later, wakes the member again)."""
POLL_S = 0.5
"""How often a waiting run looks at its inbox."""
ACTIVE_TASK_STATES = ("working", "input-required")
"""The task states in which a worker still has a report to write."""


@dataclass
class Turn:
    """One turn of ``team/member`` (see the module).

    Args:
        ws: the workspace (its clock stamps everything; the actor becomes the member).
        team, member: who plays the turn.
        rng: its choices (words, delays).
        speed: how much faster than real time it thinks, works and waits.
        say: where each step is said (the run's output log).
    """

    ws: Workspace
    team: str
    member: str
    rng: random.Random
    speed: float = 1.0
    say: Callable[[str], None] = print
    gone: bool = False
    acks: list[str] = field(default_factory=list)
    waiting_since: float | None = None
    """When it asked permission and began waiting for the answer (monotonic)."""

    def __post_init__(self) -> None:
        self.ws = as_member(self.ws, self.member)
        self.persona = persona_for(self.member)

    def play(self) -> None:
        """The whole turn (see the module)."""
        messages = self._take()
        if messages:
            self._pause(THINK_S, "thinking")
        self._answer_all(messages)
        while self.waiting_since is not None and not self.gone:
            self._wait_for_answer()
        if self.gone:
            self.say("shut down: this run ends without an idle notification")
            return
        if not self._work():
            for text in self.acks:
                tell_lead(self.ws, self.team, self.member, text, summary="Acknowledged")
        go_idle(self.ws, self.team, self.member)
        self.say("idle notification sent; the turn is over")

    # --- messages ---------------------------------------------------------------------

    def _take(self) -> list[Injected]:
        messages = take_messages(self.ws, self.team, self.member)
        listed = ", ".join(f"{message.kind} from {message.sender}" for message in messages) or "none"
        self.say(f"read {len(messages)} unread message{'s' if len(messages) != 1 else ''}: {listed}")
        return messages

    def _pause(self, span: tuple[float, float], doing: str) -> None:
        seconds = self.rng.uniform(*span)
        self.say(f"{doing} for {seconds:.1f} s")
        time.sleep(seconds / self.speed)

    def _answer_all(self, messages: list[Injected]) -> None:
        for message in messages:
            self._answer(message)
            if self.gone:
                return

    def _answer(self, message: Injected) -> None:
        kind = message.kind
        if kind == "shutdown_request" and message.request_id:
            self._answer_shutdown(message.request_id)
        elif kind == "task_assignment":
            self._take_task(message)
        elif kind == "plan_approval_response":
            self._after_plan_review(message)
        elif kind == "permission_response":
            answer = decode_text(message.text)
            allowed = isinstance(answer, PermissionResponse) and answer.subtype == "success"
            self.waiting_since = None
            self._tell(
                "Permission granted; running it now." if allowed else "Permission denied; I'll find another way.",
                "Permission answered",
            )
        elif kind == "plain" and message.summary == STATUS_CHECK:
            self._tell(self.rng.choice(PROGRESS), "Progress")
        elif kind == "plain":
            self.acks.append(f"Got it ({one_line(message.summary or message.text, 60)}). I'll fold that in.")

    def _tell(self, text: str, summary: str) -> None:
        tell_lead(self.ws, self.team, self.member, text, summary=summary)
        self.say(f"told the lead: {text}")

    def _answer_shutdown(self, request_id: str) -> None:
        answer = self.persona.shutdown
        if answer == "ignore" or (answer == "approve-when-resent" and self._first_shutdown_request(request_id)):
            self.say(f"shutdown request {request_id}: left unanswered ({answer})")
            return
        approve = answer != "reject"
        respond_shutdown(
            self.ws,
            self.team,
            request_id,
            approve=approve,
            sender=self.member,
            reason=None if approve else self.persona.reject_reason,
        )
        self.say(f"shutdown request {request_id}: {'approved' if approve else 'rejected'}")
        self.gone = approve

    def _first_shutdown_request(self, request_id: str) -> bool:
        """Whether ``request_id`` is the first shutdown request this member ever received."""
        requests = [
            entry.kind.correlation_id
            for entry in list_inbox(self.ws, self.team, self.member)
            if entry.kind is not None and entry.kind.KIND == "shutdown_request"
        ]
        return bool(requests) and requests[0] == request_id

    def _take_task(self, message: Injected) -> None:
        if self.persona.plan:
            self._ask_plan(self.persona.plan)
        elif self.persona.permission:
            tool, description, tool_input = self.persona.permission
            ask_permission(self.ws, self.team, self.member, tool, description, tool_input)
            self.say(f"asked the lead's permission to use {tool}: {description}; waiting for the answer")
            self.waiting_since = time.monotonic()
        else:
            self._tell("Picked it up; starting now.", "Task picked up")

    def _ask_plan(self, plan: str) -> None:
        ask_plan_approval(
            self.ws, self.team, self.member, plan, plan_file=f"/home/dev/.claude/plans/{self.member}-plan.md"
        )
        self.say("sent the lead a plan for approval")

    def _after_plan_review(self, message: Injected) -> None:
        """Approved: say so and start; rejected: send the plan again, revised."""
        review = decode_text(message.text)
        if not isinstance(review, PlanApprovalResponse):
            return
        if review.approved:
            self._tell("Plan approved; starting with step 1.", "Plan approved")
            return
        feedback = one_line(review.feedback or "no feedback", 200)
        self._ask_plan((self.persona.plan or "# Plan\n").rstrip("\n") + f"\n\nRevised after feedback: {feedback}\n")

    def _wait_for_answer(self) -> None:
        """Still in the run: look at the inbox until the permission's answer (or any
        message) comes, or :data:`PERMISSION_WAIT_S` pass (the turn then ends: a later
        answer wakes the member again)."""
        assert self.waiting_since is not None
        if (time.monotonic() - self.waiting_since) * self.speed >= PERMISSION_WAIT_S:
            self.say(f"no answer within {PERMISSION_WAIT_S:g} s: ending the turn until it comes")
            self.waiting_since = None
            return
        time.sleep(POLL_S / self.speed)
        if list_inbox(self.ws, self.team, self.member, unread_only=True):
            self._answer_all(self._take())

    # --- a worker's duties -------------------------------------------------------------

    def _work(self) -> bool:
        """Write the final.json each of its tasks is owed (see the module); whether it did."""
        reported = False
        for task_id in task_ids(self.ws):
            try:
                task = load_task(self.ws, task_id)
            except TeamdeckError:
                continue  # a broken task.yaml is the person's to see, not the worker's
            if task.state not in ACTIVE_TASK_STATES:
                continue
            for worker in task.workers:
                if self._is_me(worker):
                    reported = self._report(task, worker.id) or reported
        return reported

    def _is_me(self, worker: Worker) -> bool:
        if worker.member:
            return worker.member.lower() == self.member.lower()
        try:
            return worker.id == worker_id_for(self.member)
        except TeamdeckError:
            return False

    def _report(self, task: Task, agent_id: str) -> bool:
        status = output_status(self.ws, task.id, agent_id)
        if status is None:
            self._pause(WORK_S, f"working on task {task.id} as worker {agent_id}")
            if self.persona.report == "blocked":
                questions = self.rng.sample(QUESTIONS, 2)
                output = {
                    "status": "blocked",
                    "summary": f"Stopped before finishing '{task.title}': a person must decide.",
                    "questions": questions,
                    "nextActions": ["Continue once the gate is answered"],
                }
                text = f"{task.id}: blocked, {len(questions)} questions in my final.json."
            else:
                output = {"status": "completed", "summary": self.rng.choice(RESULTS), "nextActions": []}
                text = f"{task.id}: done, final.json written."
        elif status == "blocked":
            gate = next(
                (
                    gate
                    for gate in task.gates
                    if gate.kind == "worker-blocked" and gate.agentInstance == agent_id and gate.state != "blocked"
                ),
                None,
            )
            if gate is None:
                return False
            if gate.state == "approved":
                summary = f"Resumed with the answers in human-notes.md. {self.rng.choice(RESULTS)}"
                output = {"status": "completed", "summary": summary, "nextActions": []}
            else:
                reason = one_line(gate.note or "no note", 200)
                output = {
                    "status": "failed",
                    "summary": f"Stopped: the gate was rejected ({reason}).",
                    "nextActions": [],
                }
            text = f"{task.id}: gate {gate.id} {gate.state}; final.json now says {output['status']}."
        else:
            return False
        write_final_output(self.ws, task.id, agent_id, output)
        self.say(f"wrote tasks/{task.id}/agents/{agent_id}/artifacts/final.json: {output['status']}")
        self._tell(text, f"{task.id}: {output['status']}")
        return True
