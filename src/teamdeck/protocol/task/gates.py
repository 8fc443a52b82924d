"""A task's gates as they are (spec 000): every gate of one task or of the workspace
(``teamdeck gate list``), and who decided one and when. Reading only: deciding a gate,
which also runs its kind's rule and tells the workers, is
protocol/effects/gate_decisions.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from teamdeck.errors import TeamdeckError
from teamdeck.model.task import Gate
from teamdeck.protocol.task.human_notes import when
from teamdeck.protocol.task.taskfile import load_task, task_ids
from teamdeck.store.workspace import Workspace


def already_decided(ws: Workspace, gate: Gate) -> str:
    """``gate g1 already approved by human:x at 2026-03-01 10:42:03 UTC`` ("by you" for us)."""
    who = gate.decidedBy or "someone"
    if who == ws.actor:
        who = f"you ({who})"
    moment = when(gate.decidedAt) if gate.decidedAt else "an unknown time"
    return f"gate {gate.id} already {gate.state} by {who} at {moment}"


@dataclass(frozen=True)
class GateEntry:
    """A gate together with the task it belongs to."""

    task_id: str
    task_title: str
    task_state: str
    gate: Gate


@dataclass(frozen=True)
class GateListing:
    """Gates found, and the tasks that could not be read (one line each)."""

    gates: list[GateEntry] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def list_gates(ws: Workspace, task_id: str | None = None) -> GateListing:
    """Every gate of one task, or of every task in the workspace (task id order, then
    gate order within a task).

    Raises:
        NotFound, InvalidFile: only when ``task_id`` is given and cannot be read; when
            listing every task, unreadable ones are listed in ``problems`` instead.
    """
    if task_id is not None:
        task = load_task(ws, task_id)
        return GateListing([GateEntry(task.id, task.title, task.state, gate) for gate in task.gates])
    listing = GateListing()
    for each in task_ids(ws):
        try:
            task = load_task(ws, each)
        except TeamdeckError as err:
            listing.problems.append(str(err))
            continue
        listing.gates.extend(GateEntry(task.id, task.title, task.state, gate) for gate in task.gates)
    return listing
