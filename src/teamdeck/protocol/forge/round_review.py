"""Seed 001 §16's round review as a decision in teamdeck's one decision queue.

When every sub issue of a parent issue is final, a teamdeck task
``round-<owner>__<repo>-<n>-<round>`` is made for the round, in state ``verified`` (its
work, the subs' PRs, is reviewed and merged), holding one blocked gate ``round-review``
of kind ``round-review`` with the seed's three questions. So ``teamdeck gate
approve|reject``, the TUI's decision queue and every other front decide it unchanged:

- approve = the goal is achieved: the task is ``done``; its follow-up records the
  outcome on the parent, queues a comment on the parent issue and closing it in
  forge/outbox.jsonl (an adapter at the edge posts them: protocol/forge/outbox.py), and
  tells the coordinator.
- reject (a note is required) = a new round: the task is ``canceled`` with the note as
  its reason; the follow-up records the note, queues it as a comment and tells the
  coordinator, who opens the next round's subs. The next time they are all final, round
  N+1 opens.

The coordinator is the parent's creator; it gets the ``round_review`` message when the
gate opens, and the people supervising the team see the gate in the queue.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

from teamdeck.clock import iso
from teamdeck.errors import TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.forge import ForgeIssue
from teamdeck.model.task import Gate, GateAnswer, Task, TaskState
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.common.markdown import code_span, fenced
from teamdeck.protocol.forge.agents import Agent, known_agents
from teamdeck.protocol.forge.issues import change_issue, event, issue_key, load_issue, repo_key
from teamdeck.protocol.forge.notify import send
from teamdeck.protocol.forge.outbox import queue_post
from teamdeck.protocol.task.human_notes import sync_human_notes
from teamdeck.protocol.task.lifecycle import can_transition, transition_event
from teamdeck.protocol.task.taskfile import transact
from teamdeck.store.paths import ID_RE, check_id
from teamdeck.store.workspace import Workspace

log = logging.getLogger(__name__)

GATE_ID = "round-review"
KIND = "round-review"
QUESTIONS = (
    "Is the goal still clear (any goal drift)?",
    "Do the outputs cover the goal (check each acceptance criterion)?",
    "What does the next round need? approve: the goal is achieved and the parent issue is closed; "
    "reject with a note: a new round, the note says what it must do.",
)


def round_task_id(parent: ForgeIssue, round_number: int) -> str:
    """``round-acme__quant-100-1`` (a digest of the repository when that is too long for an id)."""
    wanted = f"round-{repo_key(parent.repo)}-{parent.number}-{round_number}"
    if ID_RE.fullmatch(wanted):
        return wanted
    digest = hashlib.sha256(parent.repo.lower().encode()).hexdigest()[:12]
    return check_id(f"round-{digest}-{parent.number}-{round_number}", "task id")


def _sub_line(sub: ForgeIssue) -> str:
    who = ", ".join(sub.assignees) or "nobody"
    pull = f", PR #{sub.pull.number} {sub.pull.state}" if sub.pull else ""
    return f"#{sub.number} {code_span(sub.title)}: {sub.status}, assignee {who}{pull}"


def open_round_review(
    ws: Workspace, parent: ForgeIssue, subs: list[ForgeIssue], coordinator: Agent | None, *, actor: str
) -> list[str]:
    """Open the next round review of ``parent`` (its subs all final); returns what was done.

    Idempotent: a task already made for this round (a crash before the parent recorded
    it) is reused, and the coordinator's message is sent once.
    """
    round_number = parent.rounds + 1
    task_id = round_task_id(parent, round_number)
    subs = sorted(subs, key=lambda sub: sub.number)
    done: list[str] = []
    if not (ws.task_file(task_id).exists() or ws.events_file(task_id).exists()):
        _create_task(ws, parent, subs, coordinator, task_id, round_number)
        done.append(f"round {round_number} review of {parent.ref} opened: gate {GATE_ID} on task {task_id}")
    once = f"round:{round_number}"
    if coordinator is not None and once not in parent.notified:
        sent = send(
            ws,
            coordinator,
            "round_review",
            {
                "ref": parent.ref,
                "title": code_span(parent.title),
                "body": fenced(parent.body) if parent.body.strip() else "(no description)",
                "subs": "\n".join(f"- {_sub_line(sub)}" for sub in subs),
                "round": str(round_number),
                "task": task_id,
                "gate": GATE_ID,
            },
        )
        done.append(f"round_review message to {coordinator.team}/{coordinator.member} ({sent.id})")
    key = issue_key(parent.repo, parent.number)

    def decide(current: ForgeIssue | None) -> list[Event]:
        events = []
        if current is not None and coordinator is not None and once not in current.notified:
            events.append(event(ws, "issue.notified", {"key": once}, actor))
        payload = {"round": round_number, "subs": [sub.number for sub in subs], "task": task_id}
        return [*events, event(ws, "issue.round_opened", payload, actor)]

    change_issue(ws, key, decide, action=f"record round {round_number} of {parent.ref}")
    return done


def _create_task(
    ws: Workspace,
    parent: ForgeIssue,
    subs: list[ForgeIssue],
    coordinator: Agent | None,
    task_id: str,
    round_number: int,
) -> None:
    def decide(_none: Task | None) -> list[Event]:
        task: dict[str, Any] = {
            "id": task_id,
            "title": f"Round {round_number} review: {parent.ref} {parent.title}"[:200],
            "state": "verified",
            "gates": [],
            "team": coordinator.team if coordinator is not None else None,
            "creator": "forge",
            "workers": [],
            "forgeIssue": issue_key(parent.repo, parent.number),
            "round": round_number,
        }
        events = [new_event(ws, "task.created", {"task": task}, actor="forge")]
        if coordinator is not None:
            worker = {
                "id": check_id(coordinator.member.lower(), "worker id"),
                "member": coordinator.member,
                "role": "coordinator",
                "assignedAt": iso(ws.clock()),
            }
            events.append(new_event(ws, "task.delegated", {"worker": worker}, actor="forge"))
        finished = "; ".join(f"#{sub.number} {sub.status}" for sub in subs)
        events.append(
            new_event(
                ws,
                "gate.blocked",
                {
                    "gateId": GATE_ID,
                    "kind": KIND,
                    "agentInstance": coordinator.member if coordinator is not None else None,
                    "reason": f"every sub issue of {parent.ref} is final ({finished}): round {round_number} review",
                    "questions": list(QUESTIONS),
                },
                actor="forge",
            )
        )
        return events

    change = transact(ws, task_id, decide, action=f"open the round review of {parent.ref}", create=True)
    ws.agents_dir(task_id).mkdir(exist_ok=True)
    sync_human_notes(ws, change.task)


def achieved_or_new_round(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[Event]:
    """Approve: the round's task is ``done`` (goal achieved); reject: ``canceled`` (a new round)."""
    target: TaskState = "done" if decision == "approve" else "canceled"
    if not can_transition(task.state, target):
        return []
    reason = "goal achieved" if decision == "approve" else f"new round: {gate.note or ''}".rstrip(": ")
    return [transition_event(ws, task, target, reason=reason)]


def report_the_outcome(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[str]:
    """Record the outcome on the parent issue, post it on Gitea, tell the coordinator."""
    key = getattr(task, "forgeIssue", None)
    round_number = getattr(task, "round", None)
    if not isinstance(key, str) or not isinstance(round_number, int):
        return []
    parent = _parent(ws, key)
    if parent is None:
        return [f"the parent issue {key} of task {task.id} could not be read; the outcome is only on the task"]
    outcome = "achieved" if decision == "approve" else "new-round"
    change_issue(
        ws,
        key,
        lambda _current: [
            event(ws, "issue.round_decided", {"round": round_number, "outcome": outcome, "note": gate.note}, ws.actor)
        ],
        action=f"record the round {round_number} outcome of {parent.ref}",
    )
    notices = [f"{parent.ref}: round {round_number} {'goal achieved' if outcome == 'achieved' else 'new round'}"]
    notices.append(_queue_outcome(ws, parent, round_number, decision, gate))
    coordinator = known_agents(ws).get(parent.creator)
    if coordinator is not None:
        if outcome == "new-round":
            then = f"Open the next round: create its sub issues (body `Parent: #{parent.number}`) and register them on the parent."
        else:
            then = (
                f"teamdeck posts the outcome on #{parent.number} and closes it on Gitea: nothing else is needed "
                "(a delivery that fails waits in the person's decision queue)."
            )
        send(
            ws,
            coordinator,
            "round_decided",
            {
                "ref": parent.ref,
                "title": code_span(parent.title),
                "round": str(round_number),
                "by": gate.decidedBy or ws.actor,
                "outcome": "goal achieved" if outcome == "achieved" else "a new round",
                "note": fenced(gate.note) if gate.note else "",
                "next": then,
            },
        )
        notices.append(f"told {coordinator.team}/{coordinator.member}")
    return notices


def outcome_comment(parent: ForgeIssue, round_number: int, decision: GateAnswer, gate: Gate) -> str:
    """The comment teamdeck posts on the parent issue for a decided round review."""
    who = gate.decidedBy or "a person"
    if decision == "approve":
        return f"[teamdeck] Round {round_number} review: goal achieved (decided by {who}). Closing #{parent.number}."
    note = (gate.note or "").strip()
    return f"[teamdeck] Round {round_number} review: a new round is needed (decided by {who}).\n\n{note}\n\n@{parent.creator}"


def _queue_outcome(ws: Workspace, parent: ForgeIssue, round_number: int, decision: GateAnswer, gate: Gate) -> str:
    """Record the outcome's comment (and, when the goal is achieved, closing the parent)
    in forge/outbox.jsonl: an adapter at the edge posts it (protocol/forge/outbox.py)."""
    achieved = decision == "approve"
    queue_post(
        ws,
        parent.repo,
        parent.number,
        outcome_comment(parent, round_number, decision, gate),
        close=achieved,
        why=f"round {round_number} review of {parent.ref}: {'goal achieved' if achieved else 'a new round'}",
    )
    return f"the outcome for Gitea is queued in forge/outbox.jsonl ({'comment, then close ' if achieved else 'comment on '}{parent.ref})"


def _parent(ws: Workspace, key: str) -> ForgeIssue | None:
    """The parent issue a round task names (by its key), if readable."""
    try:
        return load_issue(ws, key)
    except TeamdeckError as err:
        log.warning("%s", err)
        return None
