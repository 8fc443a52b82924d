"""Delegation and report_to_parent (seed 002): handing a task to a team member, and a
worker reporting back.

- :func:`delegate` records the worker in task.yaml (``task.delegated``; a task that is
  ``approved`` starts, if its dependencies are done) and then writes a
  ``task_assignment`` message into the member's Claude Code inbox, as Claude Code does.
  Recording first means a failed delivery can simply be delegated again.
- :func:`report` is report_to_parent for agents: it writes a valid
  ``agents/<agent>/artifacts/final.json`` atomically, records ``worker.reported``,
  joins the task (a ``blocked`` report opens a gate) and tells whoever delegated the
  task, with a plain message.
- :func:`notify_workers` sends one plain message to every worker of a task (the
  guardian's NEEDS_CHANGES recommendations use it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from teamdeck.clock import iso
from teamdeck.errors import Refused, TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.task import Task, Worker, WorkerRole
from teamdeck.model.team import TaskAssignment
from teamdeck.model.worker_output import WorkerOutput
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.common.intents import intent
from teamdeck.protocol.coordination.roles import DELEGATE, REPORT, check_role, check_worker
from teamdeck.protocol.task.lifecycle import START, check_can_start, refusal, transition_event
from teamdeck.protocol.task.taskfile import TaskChange, load_task, task_ids, transact
from teamdeck.protocol.task.worker_outputs import check_output
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.protocol.team.messaging.sending import Sent, send_message, send_structured
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.files import ensure_dir, read_optional
from teamdeck.store.jsonl import find_record
from teamdeck.store.loaders import dumps_json
from teamdeck.store.paths import InvalidId, check_id
from teamdeck.store.workspace import Workspace

if TYPE_CHECKING:
    from teamdeck.protocol.task.join import JoinResult

ROLES: tuple[WorkerRole, ...] = ("coordinator", "implementor", "verifier")
DELEGATABLE = ("approved", "working", "input-required")
"""States a task can be delegated in (an approved task starts)."""


def worker_id_for(member: str) -> str:
    """The worker (agent directory) id of a member: its name in lower case.

    Raises:
        InvalidId: the name does not make a valid id.
    """
    return check_id(member.lower(), "worker id")


@dataclass(frozen=True)
class Delegation:
    """What :func:`delegate` did: the task afterwards, the worker, the message sent."""

    task: Task
    worker: Worker
    events: list[Event]
    message_id: str
    confirmed: bool
    warnings: list[str] = field(default_factory=list)


def delegate(
    ws: Workspace,
    task_id: str,
    member: str,
    *,
    role: WorkerRole = "implementor",
    sender: str | None = None,
    note: str = "",
) -> Delegation:
    """Assign a task to a member of the task's team.

    Args:
        ws: the workspace.
        task_id: the task (it needs a team; it must be approved, working or input-required).
        member: the member's name in the team.
        role: implementor (default), verifier or coordinator.
        sender: who delegates (default: the team lead); told when the worker reports.
        note: extra instructions appended to the message.

    Returns:
        What was recorded and sent.

    Raises:
        Refused: the task has no team, is in a state that cannot be delegated, or
            cannot start (a dependency not done); nothing was written.
        NotFound: no such task, team or member; nothing was written.
        WriteFailed, Busy: the worker is recorded but the message could not be
            delivered (delegate again to resend).
    """
    if role not in ROLES:
        raise Refused(f"Unknown role '{role}'; roles are: {', '.join(ROLES)}")
    task = load_task(ws, task_id)
    if task.team is None:
        raise Refused(
            f"Could not delegate task {task_id}: it has no team (create it with --team, or import the plan with --team)"
        )
    config = read_team(ws, task.team)
    name = resolve_member(config, task.team, member)
    source = resolve_member(config, task.team, sender or config.lead_name, role="sender")
    check_role(config, source, DELEGATE)
    worker = Worker(id=worker_id_for(name), member=name, role=role, assignedAt=iso(ws.clock()), assignedBy=source)

    def decide(current: Task) -> list[Event]:
        if current.state not in DELEGATABLE:
            raise (
                refusal(current, "working")
                if current.state != "planned"
                else Refused(
                    f"Could not delegate task {current.id}: it is planned, not approved yet (its plan waits for approval)"
                )
            )
        events = [new_event(ws, "task.delegated", {"worker": worker.model_dump(mode="json", exclude_none=True)})]
        if current.state == START[0]:
            check_can_start(ws, current, START[1])
            events.append(transition_event(ws, current, START[1], reason=f"delegated to {name}"))
        return events

    ws.require_writable(f"delegate task {task_id} to {name}")
    with intent(ws, "delegate", task=task_id, member=name, assignedAt=worker.assignedAt, note=note) as running:
        change = transact(ws, task_id, decide, action=f"delegate task {task_id} to {name}")
        sent = _assign(ws, change.task, worker, note, running.id)
    return Delegation(change.task, worker, change.events, sent.id, sent.confirmed, list(sent.warnings))


def _assign(ws: Workspace, task: Task, worker: Worker, note: str, intent_id: str) -> Sent:
    """Send the ``task_assignment`` of a recorded delegation, once per delegation
    (keyed by its intent: delegating again sends it again)."""
    assert task.team is not None and worker.member is not None and worker.assignedBy is not None
    assignment = TaskAssignment(
        taskId=task.id,
        subject=task.title,
        description=_instructions(ws, task, worker, note),
        assignedBy=worker.assignedBy,
        timestamp=iso(ws.clock()),
    )
    key = f"delegate:{intent_id}"
    return send_structured(ws, task.team, worker.member, assignment, sender=worker.assignedBy, key=key)


def finish_delegation(ws: Workspace, args: dict[str, Any]) -> list[str]:
    """The ``delegate`` intent's completer: a delegation recorded before the crash
    sends its assignment (once); one never recorded is dropped."""
    task = load_task(ws, str(args.get("task", "")))
    worker = next(
        (w for w in task.workers if w.member == args.get("member") and w.assignedAt == args.get("assignedAt")), None
    )
    if worker is None:
        return []
    _assign(ws, task, worker, str(args.get("note", "")), str(args["intent"]))
    return [f"task {task.id} delegated to {worker.member}: its assignment is in the inbox"]


def _instructions(ws: Workspace, task: Task, worker: Worker, note: str) -> str:
    """The assignment's description: the task's spec and how to report back."""
    parts = []
    if task.spec is not None:
        for title, text in (
            ("Objective", task.spec.objective),
            ("Scope", task.spec.scope),
            ("Definition of Done", task.spec.definitionOfDone),
            ("Verification", task.spec.verification),
        ):
            if text.strip():
                parts.append(f"## {title}\n{text.strip()}")
    if note.strip():
        parts.append(note.strip())
    final = ws.rel(ws.agents_dir(task.id) / worker.id / "artifacts" / "final.json")
    parts.append(
        f"{how_to_report(task.id, worker.id)} (or write {final} yourself: status, summary, questions, "
        "nextActions, changedFiles)."
    )
    return "\n\n".join(parts)


def how_to_report(task_id: str, worker_id: str) -> str:
    """The sentence that tells a worker how to report on its task, in the assignment,
    the guardian's request for changes and the nudges: a member run as Claude Code
    (``claude -p``) has teamdeck's MCP tools but no approved shell, so the tool comes
    first; the CLI is for the others."""
    return (
        f"When you finish or are blocked, report on task {task_id} with the report_to_parent tool of "
        f"teamdeck's MCP server, or `teamdeck report {task_id} {worker_id} --status completed|blocked|failed "
        "--summary ...`"
    )


@dataclass(frozen=True)
class Report:
    """What :func:`report` did."""

    task: Task
    output: WorkerOutput
    path: str
    events: list[Event]
    notified: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def report(
    ws: Workspace,
    task_id: str,
    agent_id: str,
    *,
    status: str,
    summary: str,
    questions: list[str] | None = None,
    next_actions: list[str] | None = None,
    changed_files: list[str] | None = None,
) -> Report:
    """report_to_parent: write the worker's final.json, join the task, tell the delegator.

    Args:
        ws: the workspace (``ws.actor`` is recorded; agents pass their own).
        task_id: the task.
        agent_id: the worker's id (its directory under ``agents/``).
        status: completed, blocked or failed.
        summary: what was done or why it stopped.
        questions: what a person must answer (blocked).
        next_actions: what should happen next.
        changed_files: files the worker changed (the diff guardian compares them).

    Returns:
        What was written and who was told.

    Raises:
        Refused: the output would not be valid (nothing written), or the task is final.
        NotFound: no such task.
        WriteFailed, Busy: the output could not be written.
    """
    check_id(agent_id, "worker id")
    task = load_task(ws, task_id)
    if task.state in ("done", "failed", "canceled"):
        raise Refused(f"Could not report on task {task_id}: it is {task.state}; nothing was written")
    check_worker(ws, task, agent_id, REPORT)
    raw = {
        "status": status,
        "summary": summary,
        "questions": list(questions or []),
        "nextActions": list(next_actions or []),
        "changedFiles": list(changed_files or []),
        "finishedAt": iso(ws.clock()),
    }
    data = (dumps_json(raw, indent=2) + "\n").encode()
    path = ws.final_output(task_id, agent_id)
    checked = check_output(agent_id, str(ws.rel(path)), data)
    if checked.output is None:
        raise Refused(f"Could not report: {checked.headline()}; nothing was written")
    ws.require_writable(f"report on task {task_id}")
    ensure_dir(path.parent)
    with intent(ws, "report", task=task_id, agent=agent_id) as running:
        atomic_replace(path, data, crash_prefix="final")
        change, joined, after, notified, notices = _recorded_joined_told(
            ws, task_id, agent_id, checked.output, running.id
        )
    return Report(
        after,
        checked.output,
        str(ws.rel(path)),
        [*change.events, *joined.events],
        notified,
        [*joined.notices, *notices],
    )


def _recorded_joined_told(
    ws: Workspace, task_id: str, agent_id: str, output: WorkerOutput, intent_id: str, *, again: bool = False
) -> tuple[TaskChange, JoinResult, Task, list[str], list[str]]:
    """What follows a written final.json: the ``worker.reported`` event, the join (a
    blocked report opens its gate), the delegator told (once).

    The event carries the report's intent id (``report``), and is recorded only when no
    event with it is in the log yet (looked for when finishing ``again``: a fresh
    report's id cannot be there): a report interrupted after its event and finished
    by the intent's completer records it once (F17)."""
    from teamdeck.protocol.task.join import join_task

    def reported(_task: object) -> list[Event]:
        if again and find_record(ws.events_file(task_id), "report", intent_id, within="payload") is not None:
            return []  # recorded before the crash: the rest is finished below
        payload = {
            "agentId": agent_id,
            "status": output.status,
            "summary": output.summary[:500],
            "questions": len(output.questions),
            "report": intent_id,
        }
        return [new_event(ws, "worker.reported", payload, actor=f"agent:{agent_id}")]

    change = transact(ws, task_id, reported, action=f"record the report of {agent_id} on task {task_id}")
    joined = join_task(ws, task_id)
    after = load_task(ws, task_id)
    notified, notices = _tell_delegator(ws, after, agent_id, output, f"report:{intent_id}")
    return change, joined, after, notified, notices


def finish_report(ws: Workspace, args: dict[str, Any]) -> list[str]:
    """The ``report`` intent's completer: a final.json written before the crash is
    recorded, joined and told (once); none written: nothing was reported."""
    task_id, agent_id = str(args.get("task", "")), str(args.get("agent", ""))
    path = ws.final_output(task_id, agent_id)
    data = read_optional(path)
    if data is None:
        return []
    checked = check_output(agent_id, str(ws.rel(path)), data)
    if checked.output is None:
        return []
    _recorded_joined_told(ws, task_id, agent_id, checked.output, str(args["intent"]), again=True)
    return [f"the report of {agent_id} on task {task_id} is joined and its delegator told"]


def _tell_delegator(
    ws: Workspace, task: Task, agent_id: str, output: WorkerOutput, key: str
) -> tuple[list[str], list[str]]:
    worker = next((worker for worker in task.workers if worker.id == agent_id), None)
    if worker is None or not worker.assignedBy or not task.team:
        return [], []
    if worker.member and worker.member.lower() == worker.assignedBy.lower():
        return [], []  # it delegated to itself: it knows what it reported
    lines = [f"Task {task.id} ({task.title}): {output.status}. {output.summary}"]
    lines += [f"Question: {question}" for question in output.questions]
    lines += [f"Next: {action}" for action in output.nextActions]
    try:
        send_message(
            ws,
            task.team,
            worker.assignedBy,
            "\n".join(lines),
            summary=f"{task.id}: {output.status}",
            sender=worker.member or None,
            key=key,
        )
    except TeamdeckError as err:
        return [], [f"the report is written, but {worker.assignedBy} was not told: {err}"]
    return [worker.assignedBy], []


def notify_workers(ws: Workspace, task: Task, text: str, *, summary: str) -> tuple[list[str], list[str]]:
    """Send ``text`` to every worker of ``task`` that is a member of its team.

    Returns:
        The members told, and notices for those who could not be (never raises for a
        delivery: the caller's change is already on disk).
    """
    if not task.team:
        return [], [f"task {task.id} has no team: its workers were not sent the message"]
    told, notices = _send_each(
        ws, task.team, [worker.member for worker in task.workers if worker.member], text, summary
    )
    if not told and not notices:
        notices.append(f"task {task.id} has no delegated workers: nobody was sent the message")
    return told, notices


def _send_each(
    ws: Workspace, team: str, members: list[str], text: str, summary: str, key: str | None = None
) -> tuple[list[str], list[str]]:
    """Send ``text`` from the team lead to each of ``members`` (each delivery on its
    own: one failing does not stop the others); with a ``key``, each send is keyed
    ``<key>:<member>`` and happens once (protocol/team/keyed_sends.py)."""
    told, notices = [], []
    for member in members:
        try:
            send_message(ws, team, member, text, summary=summary, key=f"{key}:{member}" if key else None)
            told.append(member)
        except TeamdeckError as err:
            notices.append(f"{member} was not sent the message: {err}")
    return told, notices


def member_of_worker(ws: Workspace, task: Task, agent_id: str) -> str | None:
    """The team member a worker of ``task`` is: the delegated worker's ``member``, else
    the member whose worker id (:func:`worker_id_for`) is ``agent_id`` (a worker that
    wrote its final.json without being delegated), else None.

    Raises:
        NotFound, InvalidFile: only when the roster has to be read and cannot be.
    """
    worker = next((worker for worker in task.workers if worker.id == agent_id), None)
    if worker is not None and worker.member:
        return worker.member
    if not task.team:
        return None
    for member in read_team(ws, task.team).members:
        try:
            if worker_id_for(member.name) == agent_id:
                return member.name
        except InvalidId:
            continue
    return None


FAIL_GATE_KINDS = ("verification-failed",)
"""Gate kinds that name no worker but concern every worker of the task (a guardian's
FAIL: retry or give up)."""

GATE_VERDICTS = {
    ("verification-failed", "approved"): "approved (retry: the task works again)",
    ("verification-failed", "rejected"): "rejected (give up: the task failed)",
}
"""How a decision reads for gate kinds whose approve/reject mean more than yes/no."""


def tell_gate_decision(ws: Workspace, task: Task, gate_id: str) -> tuple[list[str], list[str]]:
    """Tell the worker(s) a decided gate concerns, in their Claude Code inboxes, from
    the team lead: the worker named by the gate's ``agentInstance``, or, for a FAIL gate
    (which names none), every delegated worker of the task. Nobody else: a task with no
    team (its human-notes.md is the answer, as always), a gate naming no worker (a
    coordinator plan's approval, which moves the plan instead), and never the lead
    itself (the sender).

    Returns:
        The members told, and notices for those who could not be (never raises: the
        decision is already on disk).
    """
    gate = task.gate(gate_id)
    if gate is None or gate.state == "blocked" or not task.team:
        return [], []
    try:
        lead = read_team(ws, task.team).lead_name
        if gate.agentInstance:
            member = member_of_worker(ws, task, gate.agentInstance)
            members = [member] if member else []
        elif gate.kind in FAIL_GATE_KINDS:
            members = [worker.member for worker in task.workers if worker.member]
        else:
            members = []
    except TeamdeckError as err:
        return [], [f"the workers of task {task.id} were not told of the decision: {err}"]
    members = [member for member in dict.fromkeys(members) if member.lower() != lead.lower()]
    if not members:
        return [], []
    verdict = GATE_VERDICTS.get((gate.kind, gate.state), gate.state)
    notes = ws.rel(ws.human_notes(task.id))
    lines = [
        f"Gate {gate.id} of task {task.id} ({task.title}) was {verdict} by {gate.decidedBy or 'someone'}.",
        f"Note: {gate.note}" if gate.note else "No note was given.",
        f'The question, the decision and any answer are in {notes}, under "Gate {gate.id}".',
    ]
    key = f"gate:{task.id}:{gate.id}:{gate.state}"
    return _send_each(ws, task.team, members, "\n".join(lines), f"gate {gate.id} {gate.state}", key)


def member_roles(ws: Workspace, team: str) -> dict[str, list[str]]:
    """Each member of ``team`` → the roles they hold on its tasks (for the roster).

    Reads every teamdeck task of the team; unreadable tasks are skipped.
    """
    roles: dict[str, set[str]] = {}
    for task_id in task_ids(ws):
        try:
            task = load_task(ws, task_id)
        except TeamdeckError:
            continue
        if task.team != team:
            continue
        for worker in task.workers:
            if worker.member and worker.role:
                roles.setdefault(worker.member, set()).add(worker.role)
    order: dict[str, int] = {role: index for index, role in enumerate(ROLES)}
    return {
        member: sorted(found, key=lambda role: (order.get(role, len(ROLES)), role))
        for member, found in sorted(roles.items())
    }
