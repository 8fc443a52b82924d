"""The decision queue for agents: a worker asks a person directly (``request_decision``)
and reads the answer (``get_decision``), without writing a blocked final.json.

A request opens a ``worker-blocked`` gate exactly as a join does for a blocked
final.json (protocol/task/join.py): the same ``gate.blocked`` payload (questions sanitised
and capped), the same ``g-<agent>-<n>`` ids, the task moved to ``input-required`` in
the same transaction, and the gate's section in ``shared/human-notes.md``. The gate
carries no ``outputDigest``: no final.json raised it, so later joins leave it alone.
A person decides it like any other gate (``teamdeck gate approve|reject``, the TUI).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from teamdeck.errors import NotFound, Refused, TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.task import Gate, Task
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.coordination.roles import REQUEST_DECISION, check_worker
from teamdeck.protocol.task.human_notes import sync_human_notes
from teamdeck.protocol.task.join import gate_fields, new_gate_id, wait_for_person, worker_gates
from teamdeck.protocol.task.lifecycle import TERMINAL
from teamdeck.protocol.task.taskfile import load_task, transact
from teamdeck.store.paths import check_id, shown
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line

log = logging.getLogger(__name__)

REASON_CHARS = 200
"""The reason is one line in the gate (the questions carry the detail)."""


@dataclass(frozen=True)
class DecisionRequest:
    """What :func:`request_decision` did.

    Attributes:
        task: the task afterwards.
        gate: the gate opened.
        events: the events appended.
        notices: what the caller should know (human-notes.md not updated, the task
            could not become input-required).
    """

    task: Task
    gate: Gate
    events: list[Event]
    notices: list[str]


def request_decision(
    ws: Workspace, task_id: str, agent_id: str, *, reason: str, questions: list[str]
) -> DecisionRequest:
    """Open a gate for a person to decide, asked by the worker ``agent_id``.

    Args:
        ws: the workspace.
        task_id: the task the question is about (it must not be done, failed or canceled).
        agent_id: the asking worker's id (``agentInstance`` of the gate).
        reason: what the decision is about, in one line (required).
        questions: what the person should answer (at least one).

    Returns:
        The gate, the task afterwards and the events.

    Raises:
        InvalidId, NotFound: no such task (nothing written).
        Refused: an empty reason, no question, or a final task (nothing written).
        ReadOnly, Busy, InvalidFile, WriteFailed: as for every task change.
    """
    check_id(agent_id, "worker id")
    action = f"request a decision on task {shown(task_id)}"
    if not reason.strip():
        raise Refused(f"Could not {action}: the reason is empty; nothing was written")
    asked = [question for question in questions if question.strip()]
    if not asked:
        raise Refused(f"Could not {action}: ask at least one non-empty question; nothing was written")
    check_worker(ws, load_task(ws, task_id), agent_id, REQUEST_DECISION)  # NotFound before any lock file is made
    opened: list[str] = []
    notices: list[str] = []

    def decide(task: Task) -> list[Event]:
        if task.state in TERMINAL:
            raise Refused(f"Could not {action}: it is {task.state}; nothing was written")
        mine = worker_gates(task, agent_id)
        gate_id = new_gate_id(agent_id, len(mine) + 1, {gate.id for gate in task.gates})
        fields = gate_fields(
            agent_id,
            f"worker {agent_id} asks for a decision: {one_line(reason, REASON_CHARS)}",
            asked,
            more_in="the request (ask fewer questions)",
        )
        events = [new_event(ws, "gate.blocked", {"gateId": gate_id, **fields}, actor=f"agent:{agent_id}")]
        moved, why = wait_for_person(ws, task, [gate_id])
        opened.append(gate_id)
        notices.extend(why)
        return events + moved

    change = transact(ws, task_id, decide, action=action)
    try:
        sync_human_notes(ws, change.task)
    except TeamdeckError as err:
        notice = f"the gate is open, but human-notes.md was not updated ({err}); the next join adds it"
        log.warning("%s", notice)
        notices.append(notice)
    gate = change.task.gate(opened[-1])
    assert gate is not None, "the gate was just opened"
    return DecisionRequest(change.task, gate, change.events, [*change.notices, *notices])


def get_decision(ws: Workspace, task_id: str, gate_id: str) -> Gate:
    """The gate ``gate_id`` of a task as it is now (``state`` blocked, approved or
    rejected; ``decidedBy``, ``decidedAt`` and ``note`` once decided). Reads only.

    Raises:
        InvalidId, NotFound: no such task or gate.
        InvalidFile: task.yaml cannot be read.
    """
    task = load_task(ws, task_id)
    gate = task.gate(gate_id)
    if gate is None:
        known = ", ".join(gate.id for gate in task.gates) or "none"
        raise NotFound(f"Task {task.id} has no gate '{shown(gate_id)}' (its gates: {known})")
    return gate


def decision_json(task_id: str, gate: Gate) -> dict[str, Any]:
    """A gate as an agent reads its decision: ``status`` pending / approved / rejected."""
    return {
        "task": task_id,
        "gate": gate.id,
        "status": "pending" if gate.state == "blocked" else gate.state,
        "decidedBy": gate.decidedBy,
        "decidedAt": gate.decidedAt,
        "note": gate.note,
        "reason": gate.reason,
        "questions": list(gate.questions),
        "instructionsRef": gate.instructionsRef,
    }
