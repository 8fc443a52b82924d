"""Stalls caught: a member that leaves assigned work untouched is
nudged, nudged again after a longer wait, then a ``member-stalled`` decision waits for a
person: nudge again, reassign (to one of the team's idle members, offered in the
question), or give up (protocol/stall_gates.py). protocol/stall_scan.py says what is
due; this module does it.
"""

from __future__ import annotations

from teamdeck.errors import TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.settings import AutoworkSettings
from teamdeck.model.task import Task
from teamdeck.protocol.autowork.steps import AutoStep
from teamdeck.protocol.events import new_event
from teamdeck.protocol.nudges import nudge
from teamdeck.protocol.stall_scan import STALL_GATE, Stall, idle_members, owed_work, span
from teamdeck.protocol.taskfile import load_task, transact
from teamdeck.store.workspace import Workspace

QUESTION = (
    "Nudge again, reassign or give up? Approve with no note: {member} is nudged again. Approve with a member's "
    "name as the note: the task is reassigned to them (idle now: {idle}). Reject: give up, the task fails."
)


def catch_stalls(ws: Workspace, settings: AutoworkSettings, steps: list[AutoStep], problems: list[str]) -> float | None:
    """Send every nudge and open every decision that is due now.

    Returns:
        Seconds until the next one falls due by the clock alone (None: none will).
    """
    waits: list[float] = []
    for stall in owed_work(ws, settings, ws.clock()):
        if stall.due == "nothing":
            if stall.next_at_s is not None:
                waits.append(stall.next_at_s - stall.idle_s)
            continue
        if stall.due == "decided-pending":
            continue
        try:
            task = load_task(ws, stall.task_id)
            if stall.due == "nudge":
                _nudge(ws, task, stall, steps)
                waits.append(settings.stallAfterSeconds * settings.backoff ** min(stall.nudges + 1, settings.nudges))
            else:
                _ask(ws, task, stall, steps)
        except TeamdeckError as err:
            problems.append(f"stall of {stall.member} on task {stall.task_id}: {err}")
    return max(0.0, min(waits)) if waits else None


def _nudge(ws: Workspace, task: Task, stall: Stall, steps: list[AutoStep]) -> None:
    worker = next(worker for worker in task.workers if worker.id == stall.worker)
    cause = f"{stall.member} {stall.why} {stall.task_id} for {span(stall.idle_s)}"
    nudge(ws, task, worker, attempt=stall.nudges + 1, cause=cause, since=stall.since.isoformat())
    steps.append(AutoStep("nudge", task.id, cause, f"nudge {stall.nudges + 1} sent to {stall.member}"))


def _ask(ws: Workspace, task: Task, stall: Stall, steps: list[AutoStep]) -> None:
    assert task.team is not None
    idle = ", ".join(idle_members(ws, task.team, besides=stall.member)) or "nobody"
    reason = stall.line
    opened: list[str] = []

    def decide(current: Task) -> list[Event]:
        opened.clear()
        mine = [gate for gate in current.gates if gate.kind == STALL_GATE and gate.agentInstance == stall.worker]
        if any(gate.state == "blocked" for gate in mine) or current.state != "working":
            return []  # asked already (another supervisor at the same moment), or moved on
        opened.append(f"stall-{stall.worker}-{len(mine) + 1}")
        return [
            new_event(
                ws,
                "gate.blocked",
                {
                    "gateId": opened[0],
                    "kind": STALL_GATE,
                    "agentInstance": stall.worker,
                    "reason": reason[:500],
                    "questions": [QUESTION.format(member=stall.member, idle=idle)],
                },
            )
        ]

    change = transact(ws, task.id, decide, action=f"ask about {stall.member}'s stall on task {task.id}")
    if change.events:
        steps.append(AutoStep("stall-decision", task.id, reason, f"decision {opened[0]} waits for a person"))


def close_moot_decisions(ws: Workspace, tasks: list[Task], steps: list[AutoStep], problems: list[str]) -> None:
    """A stall decision whose member answered meanwhile (reported, or left the task) is
    closed: nobody is asked about work that is no longer owed, and an open gate would
    fail the task's verification."""
    from teamdeck.protocol.stall_scan import owing_workers

    for task in tasks:
        stale = [gate for gate in task.open_gates if gate.kind == STALL_GATE]
        if not stale:
            continue
        try:
            owing = {worker.id for worker in owing_workers(ws, task)} if task.state == "working" else set()
            moot = [gate for gate in stale if gate.agentInstance not in owing]
            if moot:
                _close(ws, task, [gate.id for gate in moot], steps)
        except TeamdeckError as err:
            problems.append(f"stall decisions of task {task.id}: {err}")


def _close(ws: Workspace, task: Task, gate_ids: list[str], steps: list[AutoStep]) -> None:
    def decide(current: Task) -> list[Event]:
        return [
            new_event(
                ws,
                "gate.rejected",
                {"gateId": gate.id, "agentInstance": gate.agentInstance, "by": ws.actor, "note": "moot: answered"},
            )
            for gate in current.open_gates
            if gate.id in gate_ids
        ]

    change = transact(ws, task.id, decide, action=f"close the answered stall decisions of task {task.id}")
    if change.events:
        cause = f"{', '.join(gate_ids)}: the member answered (or left the task) before a person decided"
        steps.append(AutoStep("stall-decision", task.id, cause, "stall decision closed"))
