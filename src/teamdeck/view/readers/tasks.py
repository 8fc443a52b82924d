"""Reading one teamdeck task into a :class:`TaskView`: task.yaml, its workers' outputs,
its gates and its joined summary.

task.yaml is read directly when its ``lastEventId`` is the last record of events.jsonl
(the common case: the log's tail is already loaded by view/readers/log_source.py), so a task with
a million events is not replayed to be shown; otherwise :func:`load_task` folds the
events a crashed writer left unapplied (F12), exactly as the writers do.
"""

from __future__ import annotations

from dataclasses import replace

from teamdeck.errors import InvalidFile, NotFound, TeamdeckError
from teamdeck.model.task import Gate, Task
from teamdeck.protocol.task.taskfile import TASK, load_task, parse_task_dict
from teamdeck.protocol.task.worker_outputs import WorkerResult, read_worker_outputs
from teamdeck.store.files import read_optional
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.workspace import Decision, Problem, TaskView, WorkerView

SUMMARY_MD = "joined-summary.md"


Outputs = tuple[tuple[WorkerResult, ...], Problem | None]
"""A task's worker outputs as :func:`read_outputs` read them, and why ``agents/``
could not be listed."""


def read_outputs(ws: Workspace, task_id: str) -> Outputs:
    """Every worker output of the task, read and checked (final.json parsed and
    validated against the schema)."""
    try:
        return tuple(read_worker_outputs(ws, task_id)), None
    except InvalidFile as err:
        return (), Problem.of(err)


def read_task(
    ws: Workspace,
    task_id: str,
    *,
    last_event_id: str | None = None,
    previous: TaskView | None = None,
    outputs: Outputs | None = None,
    outputs_checked: bool = True,
) -> TaskView | None:
    """The task as its files say now.

    Args:
        ws: the workspace.
        task_id: a valid task id.
        last_event_id: the id of the last record in its events.jsonl, if known (lets
            a consistent task.yaml be read without replaying the log).
        previous: the task as last shown; when task.yaml is now broken the row keeps
            these values and carries the problem (B1: previous good state kept).
        outputs: the worker outputs when the caller kept them (nothing under
            ``agents/`` changed since they were read): a decision that rewrites
            task.yaml does not parse and validate every final.json again. Read here
            when None.
        outputs_checked: False to leave the outputs unread: the view then lists the
            workers task.yaml names as ``checking`` and says ``outputs_checked=False``.

    Returns:
        The view, or None when the task is gone (no task.yaml and no creation event).
    """
    rel = str(ws.rel(ws.task_file(task_id)))
    try:
        task = _load(ws, task_id, last_event_id)
    except NotFound:
        return None
    except TeamdeckError as err:
        problem = Problem.of(err, rel)
        if previous is not None:
            return replace(previous, problem=problem)
        return TaskView(id=task_id, problem=problem)
    if not outputs_checked:
        workers, worker_problem = _checking(task), None
    else:
        workers, worker_problem = _workers(task, outputs if outputs is not None else read_outputs(ws, task_id))
    summary_path = _summary_path(ws, task_id)
    return TaskView(
        id=task.id,
        title=task.title,
        state=task.state,
        team=task.team,
        updated_at=task.updatedAt,
        revision=task.revision,
        gates=tuple(task_gate_view(task, gate) for gate in task.gates),
        workers=workers,
        outputs_checked=outputs_checked,
        summary_path=summary_path,
        problem=worker_problem,
    )


def _load(ws: Workspace, task_id: str, last_event_id: str | None) -> Task:
    if last_event_id is not None:
        path = ws.task_file(task_id)
        data = read_optional(path, shown=ws.rel(path))
        if data is not None:
            raw = parse_task_dict(data, ws.rel(path), TASK)
            if raw.get("lastEventId") == last_event_id:
                return Task.model_validate(raw)
    return load_task(ws, task_id)


def task_gate_view(task: Task, gate: Gate) -> Decision:
    """A task.yaml gate as a :class:`Decision`."""
    questions = tuple(gate.questions)
    title = gate.reason or (questions[0] if questions else f"gate {gate.id}")
    notes = f"tasks/{task.id}/shared/human-notes.md"
    return Decision(
        key=f"task:{task.id}:{gate.id}",
        kind="task-gate",
        subkind=gate.kind,
        state=gate.state,
        created_at=gate.createdAt,
        source=f"task {task.id}",
        title=title,
        reason=gate.reason,
        agent=gate.agentInstance,
        questions=questions,
        notes_path=notes,
        task_id=task.id,
        gate_id=gate.id,
        team=task.team,
        decided_by=gate.decidedBy,
        decided_at=gate.decidedAt,
        note=gate.note,
    )


def _checking(task: Task) -> tuple[WorkerView, ...]:
    """The workers task.yaml names, their outputs not read yet: who they are is known,
    how they finished is not."""
    return tuple(WorkerView(id=worker.id, status="checking", member=worker.member) for worker in task.workers)


def _workers(task: Task, outputs: Outputs) -> tuple[tuple[WorkerView, ...], Problem | None]:
    results, problem = outputs
    if problem is not None:
        return (), problem
    members = {worker.id: worker.member for worker in task.workers}
    views = [worker_view(result, members.get(result.agent_id)) for result in results]
    known = {view.id for view in views}
    # Workers task.yaml names that have no directory yet are pending.
    views += [
        WorkerView(id=worker.id, status="pending", member=worker.member)
        for worker in task.workers
        if worker.id not in known
    ]
    return tuple(views), None


def worker_view(result: WorkerResult, member: str | None = None) -> WorkerView:
    """A worker output as read by protocol/task/worker_outputs.py, as a :class:`WorkerView`."""
    output = result.output
    return WorkerView(
        id=result.agent_id,
        status=result.status,
        summary=output.summary if output else "",
        questions=tuple(output.questions) if output else (),
        problems=(result.headline(),) if result.problems else (),
        member=member,
    )


def _summary_path(ws: Workspace, task_id: str) -> str | None:
    """joined-summary.md relative to the workspace, if the join wrote one."""
    md = ws.reports_dir(task_id) / SUMMARY_MD
    return str(ws.rel(md)) if md.is_file() else None
