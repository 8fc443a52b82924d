"""Stalls caught: a member that leaves assigned work untouched is
nudged, nudged again after a longer wait, then a ``member-stalled`` decision waits for a
person: nudge again, reassign (to one of the team's idle members, offered in the
question), or give up (protocol/effects/stall_gates.py). protocol/effects/owed.py says what is due (a
task's report, or work on Gitea: protocol/forge/stalls.py); this module does it, the
same way for both: Gitea work's nudges and decision live on the task that follows it.
"""

from __future__ import annotations

from teamdeck.errors import TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.settings import AutoworkSettings
from teamdeck.model.task import Task, Worker
from teamdeck.protocol.autowork.steps import AutoStep
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.coordination.nudges import nudge
from teamdeck.protocol.coordination.stall_scan import STALL_GATE, Stall, owing_workers, span
from teamdeck.protocol.effects.owed import idle_members, owed_work
from teamdeck.protocol.forge.stalls import ensure_holder, forge_issue_of, nudge_text, owed_forge_work
from teamdeck.protocol.task.taskfile import load_task, transact
from teamdeck.store.workspace import Workspace

QUESTION = (
    "Nudge again, reassign or give up? Approve with no note: {member} is nudged again. Approve with a member's "
    "name as the note: the task is reassigned to them (idle now: {idle}). Reject: give up, the task fails."
)
ISSUE_QUESTION = (
    "Nudge again, reassign or give up? Approve with no note: {member} is nudged again. Approve with a member's "
    "name as the note: {subject} is reassigned to them, on Gitea too (idle now: {idle}). Reject: give up, "
    "teamdeck stops waiting for {member} on it (the issue is left as it is)."
)
DISCUSSION_QUESTION = (
    "Nudge again or give up? Approve with no note: {member} is nudged again. Reject: give up, teamdeck stops "
    "waiting for {member}'s comment on {subject} (a discussion is everyone's: it is not reassigned)."
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
            task, worker = _work_of(ws, stall)
            if stall.due == "nudge":
                _nudge(ws, task, worker, stall, steps)
                waits.append(settings.stallAfterSeconds * settings.backoff ** min(stall.nudges + 1, settings.nudges))
            else:
                _ask(ws, task, stall, steps)
        except TeamdeckError as err:
            problems.append(f"stall of {stall.member} on {stall.subject or 'task ' + stall.task_id}: {err}")
    return max(0.0, min(waits)) if waits else None


def _work_of(ws: Workspace, stall: Stall) -> tuple[Task, Worker]:
    """The task the stall's nudges and decision go on, and the member's worker there (for
    Gitea work, the task that follows the issue, made at its first step)."""
    if stall.kind != "task":
        return ensure_holder(ws, stall)
    task = load_task(ws, stall.task_id)
    return task, next(worker for worker in task.workers if worker.id == stall.worker)


def _nudge(ws: Workspace, task: Task, worker: Worker, stall: Stall, steps: list[AutoStep]) -> None:
    attempt = stall.nudges + 1
    cause = f"{stall.member} {stall.why} {stall.subject or stall.task_id} for {span(stall.idle_s)}"
    text, summary = nudge_text(stall, attempt, cause) if stall.kind != "task" else (None, None)
    nudge(ws, task, worker, attempt=attempt, cause=cause, since=stall.since.isoformat(), text=text, summary=summary)
    steps.append(AutoStep("nudge", task.id, cause, f"nudge {attempt} sent to {stall.member}"))


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
                    "questions": [_question(stall).format(member=stall.member, idle=idle, subject=stall.subject)],
                },
            )
        ]

    change = transact(ws, task.id, decide, action=f"ask about {stall.member}'s stall on task {task.id}")
    if change.events:
        steps.append(AutoStep("stall-decision", task.id, reason, f"decision {opened[0]} waits for a person"))


def _question(stall: Stall) -> str:
    return {"task": QUESTION, "issue": ISSUE_QUESTION}.get(stall.kind, DISCUSSION_QUESTION)


def close_moot_decisions(
    ws: Workspace, settings: AutoworkSettings, tasks: list[Task], steps: list[AutoStep], problems: list[str]
) -> None:
    """A stall decision whose member answered meanwhile (reported, or left the task) is
    closed: nobody is asked about work that is no longer owed, and an open gate would
    fail the task's verification. For Gitea work: the agent acted on the issue, or it is
    no longer theirs."""
    forge: dict[str, set[str]] | None = None
    for task in tasks:
        stale = [gate for gate in task.open_gates if gate.kind == STALL_GATE]
        if not stale:
            continue
        try:
            if forge_issue_of(task) is not None:
                if forge is None:
                    forge = {}
                    for stall in owed_forge_work(ws, settings, ws.clock()):
                        forge.setdefault(stall.task_id, set()).add(stall.worker)
                owing = forge.get(task.id, set())
            else:
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


def retire_followers(ws: Workspace, tasks: list[Task], steps: list[AutoStep], problems: list[str]) -> None:
    """A task following a Gitea issue (protocol/forge/stalls.py) whose issue is final
    (done or closed) and that waits for no decision is canceled: nothing is left to
    follow, and the tasks list does not show it ``working`` for ever. An issue reopened
    later is followed by a new task (``stall-...-2``)."""
    from teamdeck.protocol.forge.issues import load_issue
    from teamdeck.protocol.task.lifecycle import transition_event

    for task in tasks:
        key = forge_issue_of(task)
        if key is None or task.state != "working" or task.open_gates:
            continue
        try:
            issue = load_issue(ws, key)
            if not issue.final:
                continue
            reason = f"{issue.ref} is {issue.status}: nothing left to follow"

            def decide(current: Task, reason: str = reason) -> list[Event]:
                if current.state != "working" or current.open_gates:
                    return []
                return [transition_event(ws, current, "canceled", reason=reason)]

            if transact(ws, task.id, decide, action=f"retire task {task.id}").events:
                steps.append(AutoStep("retire", task.id, reason, "the task following the issue is canceled"))
        except TeamdeckError as err:
            problems.append(f"task {task.id} following {key}: {err}")
