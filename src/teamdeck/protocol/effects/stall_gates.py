"""What deciding a ``member-stalled`` gate does (its row in protocol/effects/gate_kinds.py).

The stall decision (protocol/autowork/stalls.py) asks a person about a member that left
its work untouched through its nudges: **approve** with no note = nudge again (the wait
starts over from the decision); approve with a member's name as the note = **reassign**:
the stalled worker is taken off the task (``task.undelegated``, in the decision's own
transaction, so a name that is no member refuses the decision and nothing is written)
and the task is delegated to that member (its assignment in their inbox); **reject** =
give up: the task fails (a plan it belongs to then fails too).

For Gitea work (the task follows an issue: protocol/forge/stalls.py) the same answers
act on the issue: reassign gives the issue to the member (on Gitea too), give up stops
waiting for the agent there; the following task itself neither fails nor changes hands.
"""

from __future__ import annotations

from teamdeck.errors import NotFound, Refused
from teamdeck.model.event import Event
from teamdeck.model.task import Gate, GateAnswer, Task
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.effects.lifecycle_gates import give_up_events
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.workspace import Workspace


def reassign_or_give_up(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[Event]:
    """Reject: the task fails. Approve naming a member: the stalled worker leaves the task.
    For Gitea work, nothing more on the task (the gate's decision is what is read)."""
    from teamdeck.protocol.forge.stalls import forge_issue_of, reassign_target_check

    forge = forge_issue_of(task) is not None
    if decision == "reject":
        return [] if forge else give_up_events(ws, task, gate, f"gave up on {gate.agentInstance} at gate {gate.id}")
    target = _target(ws, task, gate)
    if target is not None and forge:
        reassign_target_check(ws, task, gate, target)
    if target is None or gate.agentInstance is None or forge:
        return []
    return [
        new_event(
            ws,
            "task.undelegated",
            {"workerId": gate.agentInstance, "reason": f"reassigned to {target} at gate {gate.id}"},
        )
    ]


def nudge_or_delegate(ws: Workspace, task: Task, gate: Gate, decision: GateAnswer) -> list[str]:
    """After the decision: the new member gets the task, or the stalled one a new nudge."""
    from teamdeck.protocol.coordination.delegation import delegate
    from teamdeck.protocol.coordination.nudges import nudge
    from teamdeck.protocol.forge.stalls import forge_issue_of, nudge_again_text, reassign_issue

    if task.team is None:
        return []
    forge = forge_issue_of(task)
    if decision != "approve":
        return [f"teamdeck stops waiting for {gate.agentInstance} on {forge}"] if forge else []
    target = _target(ws, task, gate)
    if target is not None and forge is not None:
        return reassign_issue(ws, task, gate, target)
    if target is not None:
        done = delegate(ws, task.id, target, note=f"Reassigned to you: {gate.reason}")
        return [f"task {task.id} reassigned to {done.worker.member}"]
    worker = next((worker for worker in task.workers if worker.id == gate.agentInstance), None)
    if worker is None or worker.member is None:
        return []
    cause = f"a person asked to nudge again at gate {gate.id}"
    text, summary = nudge_again_text(ws, task, cause) if forge else (None, None)
    nudge(ws, task, worker, attempt=1, cause=cause, since=gate.decidedAt, text=text, summary=summary)
    return [f"{worker.member} nudged again about {forge or 'task ' + task.id}"]


def _target(ws: Workspace, task: Task, gate: Gate) -> str | None:
    """The member the approving note names (None: no note, nudge again).

    Raises:
        Refused: the note names no member of the task's team (nothing is written).
    """
    from teamdeck.protocol.effects.owed import idle_members

    if not gate.note or task.team is None:
        return None
    config = read_team(ws, task.team)
    try:
        return resolve_member(config, task.team, gate.note.strip())
    except NotFound as err:
        idle = ", ".join(idle_members(ws, task.team)) or "none is idle"
        raise Refused(
            f"Could not reassign task {task.id}: '{gate.note.strip()}' is no member of team {task.team} "
            f"(idle members: {idle}); leave the note empty to nudge again; nothing was written"
        ) from err
