"""A nudge: the team lead reminds a member of work it has not answered.

A nudge is a ``member.nudged`` event in the task's log, then a plain message from the
lead in the member's inbox (which wakes it through the runner), under an intent whose
completer sends a recorded nudge after a crash. The message is keyed by
the task, the worker, the activity it answers and its number, and the event carries that
key, so a nudge interrupted between the two is finished by the next command, and two
supervisors nudging at once (the runner and a ``teamdeck supervise``) send and record it
once (C7, C13).
"""

from __future__ import annotations

from typing import Any

from teamdeck.clock import iso
from teamdeck.model.event import Event
from teamdeck.model.task import Task, Worker
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.common.intents import intent
from teamdeck.protocol.coordination.delegation import how_to_report
from teamdeck.protocol.coordination.stall_scan import NUDGED
from teamdeck.protocol.task.taskfile import TaskChange, read_events, transact
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.store.workspace import Workspace


def nudge(
    ws: Workspace,
    task: Task,
    worker: Worker,
    *,
    attempt: int,
    cause: str,
    since: str | None = None,
    text: str | None = None,
    summary: str | None = None,
) -> TaskChange:
    """Remind ``worker`` of ``task`` and record it.

    Args:
        ws: the workspace (its actor is recorded).
        task: the task (it has a team).
        worker: the member's worker on it.
        attempt: the nudge's number since the member's last activity.
        cause: why, recorded with the event (``bob has not reported on t1 for 20 min``).
        since: the activity the nudge answers (ISO), part of the message's key.
        text, summary: the message, when the work is not the task's report (Gitea work,
            protocol/forge/stalls.py ``nudge_text``).

    Raises:
        NotFound: the team or member is gone. ReadOnly, Busy, WriteFailed: see send_message.
    """
    assert task.team is not None and worker.member is not None
    text = text or (
        f"Reminder ({attempt}): task {task.id} ({task.title}) is waiting for your report. "
        f"{cause}. {how_to_report(task.id, worker.id)}."
    )
    key = f"nudge:{task.id}:{worker.id}:{since or iso(ws.clock())}:{attempt}"
    summary = summary or f"Reminder: {task.id} waits for your report"

    def decide(_current: Task) -> list[Event]:
        if any(event.type == NUDGED and event.payload.get("key") == key for event in read_events(ws, task.id)):
            return []  # another supervisor (the runner, a `teamdeck supervise`) claimed this nudge first
        payload = {"worker": worker.id, "member": worker.member, "attempt": attempt, "cause": cause, "key": key}
        return [new_event(ws, NUDGED, payload)]

    ws.require_writable(f"nudge {worker.member} about task {task.id}")
    with intent(
        ws, "nudge", finish=finish_nudge, team=task.team, member=worker.member, text=text, summary=summary, key=key
    ):
        change = transact(ws, task.id, decide, action=f"record the nudge of {worker.member} on task {task.id}")
        if change.events:  # whoever recorded the nudge sends it: one reminder however many supervisors
            send_message(ws, task.team, worker.member, text, summary=summary, key=key)
    return change


def finish_nudge(ws: Workspace, args: dict[str, Any]) -> list[str]:
    """The ``nudge`` intent's completer: a nudge recorded before the crash is sent (keyed:
    once); one never recorded was not made."""
    key, team, member = str(args.get("key", "")), str(args.get("team", "")), str(args.get("member", ""))
    task_id = key.split(":")[1] if key.count(":") >= 2 else ""
    if not task_id or not any(
        event.type == NUDGED and event.payload.get("key") == key for event in read_events(ws, task_id)
    ):
        return []
    send_message(ws, team, member, str(args.get("text", "")), summary=str(args.get("summary", "")), key=key)
    return [f"the nudge of {member} about task {task_id} is in their inbox"]
