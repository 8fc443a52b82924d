"""``teamdeck join TASK``: join the workers' final outputs and open gates (spec 000).

One join, under a lock that serialises joins of the task:

1. read and check every ``agents/*/artifacts/final.json`` (invalid ones are reported,
   never fatal);
2. in one task transaction: for every valid ``blocked`` output, open a gate (or update
   the open one) with a ``gate.blocked`` event; move the task to ``input-required``;
   and, when anything changed, append ``join.completed`` with the counts;
3. write ``shared/reports/joined-summary.md`` (from templates/JoinedSummary.md) and
   ``joined-summary.json``, each only if its bytes changed;
4. give every open gate its section in ``shared/human-notes.md``.

Idempotent: the same outputs joined again add no gate and no event and rewrite no file.
A gate remembers the digest of the final.json that raised it (``outputDigest``): a
worker whose gate was decided gets a new gate only when its final.json changes and
still says ``blocked``.

If task.yaml cannot be read, the reports are still written (without gate ids) and the
error is raised afterwards, saying so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from teamdeck.errors import InvalidFile, NotFound, TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.report import JoinedSummary
from teamdeck.model.task import Gate, Task
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.common.intents import intent
from teamdeck.protocol.task.human_notes import sync_human_notes
from teamdeck.protocol.task.joined_report import build_summary, load_template, render_markdown, summary_json
from teamdeck.protocol.task.lifecycle import can_transition, transition_event
from teamdeck.protocol.task.taskfile import load_task, transact
from teamdeck.protocol.task.worker_outputs import WorkerResult, read_worker_outputs
from teamdeck.store.atomic import remove_stale_temps
from teamdeck.store.files import ensure_dir, read_optional, replace_if_changed
from teamdeck.store.locks import locked
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line, sanitize

log = logging.getLogger(__name__)

REPORT_MD = "joined-summary.md"
REPORT_JSON = "joined-summary.json"
INSTRUCTIONS_REF = "./shared/human-notes.md"
MAX_GATE_QUESTIONS = 20
QUESTION_CHARS = 500
"""Questions copied into a gate are capped (the event must stay one small record);
the full text stays in final.json and the reports."""


@dataclass(frozen=True)
class JoinResult:
    """What a join did.

    Attributes:
        task_id: the task.
        summary: the joined summary (as written to joined-summary.json).
        results: every worker result, including invalid and ignored entries.
        events: the events appended (none when nothing changed).
        gates_opened: ids of gates this join created.
        gates_updated: ids of open gates whose questions or output changed.
        written: workspace-relative paths of the files this join (re)wrote.
        notices: things the person should know (crash debris cleaned up, the task could
            not become input-required...); each is also logged as a warning.
    """

    task_id: str
    summary: JoinedSummary
    results: list[WorkerResult]
    events: list[Event] = field(default_factory=list)
    gates_opened: list[str] = field(default_factory=list)
    gates_updated: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether anything was appended or written."""
        return bool(self.events or self.written)


@dataclass
class _Plan:
    """What the transaction decided, handed out of ``decide``."""

    events: list[Event] = field(default_factory=list)
    gate_ids: dict[str, str] = field(default_factory=dict)
    opened: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def join_task(ws: Workspace, task_id: str) -> JoinResult:
    """Join the task's worker outputs, open gates for blocked workers, write the reports,
    under a ``join`` intent (protocol/common/intents.py): a join a crash interrupted is run
    again by the next command (it is idempotent: the same inputs give the same files,
    a gate already opened for an output is not opened again).

    Args:
        ws: the workspace.
        task_id: the task to join.

    Returns:
        What was done (see :class:`JoinResult`).

    Raises:
        ReadOnly: writes are off (nothing was written).
        InvalidId, NotFound: no such task (nothing was written).
        InvalidFile: task.yaml (or the template) is unreadable; for task.yaml the
            reports were written first and the message says so.
        Busy, WriteFailed: a lock or the disk refused; the message says what was kept.
    """
    ws.require_writable(f"join task {task_id}")
    with intent(ws, "join", task=task_id):
        return _join(ws, task_id)


def finish_join(ws: Workspace, args: dict[str, Any]) -> list[str]:
    """The ``join`` intent's completer: join the task again."""
    task_id = str(args.get("task", ""))
    _join(ws, task_id)
    return [f"task {task_id} joined"]


def _join(ws: Workspace, task_id: str) -> JoinResult:
    action = f"join task {task_id}"
    broken: InvalidFile | None = None
    try:
        load_task(ws, task_id)  # before anything is created (a Claude Code task list is no task)
    except NotFound as err:
        raise NotFound(f"Could not {action}: {err}") from None
    except InvalidFile as err:
        broken = err
    results = read_worker_outputs(ws, task_id)
    template = load_template()
    report_md = ws.reports_dir(task_id) / REPORT_MD
    report_json = ws.reports_dir(task_id) / REPORT_JSON
    ensure_dir(report_md.parent)
    with locked(report_md, what=str(ws.rel(report_md))):
        for report in (report_md, report_json):
            for stale in remove_stale_temps(report.parent, report.name):
                log.warning("removed a temp file left by a crashed join: %s", ws.rel(stale))
        if broken is not None:
            _write_reports(ws, build_summary(task_id, results, {}), template, report_md, report_json)
            raise InvalidFile(
                broken.path, broken.where, f"{broken.why}; the joined reports were written, gates were not updated"
            )
        plan = _Plan()

        def decide(task: Task) -> list[Event]:
            nonlocal plan
            plan = _plan_gates(ws, task, results)
            summary = build_summary(task_id, results, plan.gate_ids)
            md, js = _report_bytes(summary, template)
            reports_differ = read_optional(report_md, None) != md or read_optional(report_json, None) != js
            events = list(plan.events)
            if events or reports_differ:
                events.append(
                    new_event(
                        ws,
                        "join.completed",
                        {
                            "counts": summary.totals.model_dump(),
                            "gatesOpened": plan.opened,
                            "gatesUpdated": plan.updated,
                        },
                    )
                )
            return events

        change = transact(ws, task_id, decide, action=action)
        summary = build_summary(task_id, results, plan.gate_ids)
        written = _write_reports(ws, summary, template, report_md, report_json)
        try:
            if sync_human_notes(ws, change.task):
                written.append(str(ws.rel(ws.human_notes(task_id))))
        except TeamdeckError as err:
            notice = f"gates and reports are written, but human-notes.md was not updated ({err}); the next join retries"
            log.warning("%s", notice)
            plan.notices.append(notice)
    return JoinResult(
        task_id, summary, results, change.events, plan.opened, plan.updated, written, [*change.notices, *plan.notices]
    )


def _report_bytes(summary: JoinedSummary, template: str) -> tuple[bytes, bytes]:
    markdown = render_markdown(summary, template).encode("utf-8", "backslashreplace")
    return markdown, summary_json(summary)


def _write_reports(
    ws: Workspace, summary: JoinedSummary, template: str, report_md: Path, report_json: Path
) -> list[str]:
    """Write both reports where their bytes changed; the workspace paths written."""
    markdown, data = _report_bytes(summary, template)
    written = []
    for path, content in ((report_json, data), (report_md, markdown)):
        if replace_if_changed(path, content, crash_prefix="report"):
            written.append(str(ws.rel(path)))
    return written


def _plan_gates(ws: Workspace, task: Task, results: list[WorkerResult]) -> _Plan:
    """The gate events a join adds to ``task`` for its blocked workers."""
    plan = _Plan()
    taken = {gate.id for gate in task.gates}
    for result in results:
        if result.output is None or result.output.status != "blocked":
            continue
        agent = result.agent_id
        mine = worker_gates(task, agent)
        # Only gates a join raised (they carry the output's digest) follow final.json:
        # a gate the worker asked for directly (request_decision) is left as it is.
        raised = [gate for gate in mine if gate.outputDigest is not None]
        latest = raised[-1] if raised else None
        payload = _gate_payload(result)
        if latest is not None and latest.state == "blocked":
            plan.gate_ids[agent] = latest.id
            if _differs(latest, payload):
                plan.events.append(new_event(ws, "gate.blocked", {"gateId": latest.id, **payload}))
                plan.updated.append(latest.id)
        elif latest is not None and latest.outputDigest == result.digest:
            plan.gate_ids[agent] = latest.id  # this very output was already decided on
        else:
            gate_id = new_gate_id(agent, len(mine) + 1, taken)
            taken.add(gate_id)
            plan.gate_ids[agent] = gate_id
            plan.events.append(new_event(ws, "gate.blocked", {"gateId": gate_id, **payload}))
            plan.opened.append(gate_id)
    waiting = plan.opened or plan.updated or [gate.id for gate in task.open_gates]
    events, notices = wait_for_person(ws, task, waiting)
    plan.events += events
    plan.notices += notices
    return plan


def worker_gates(task: Task, agent: str) -> list[Gate]:
    """The ``worker-blocked`` gates of one worker, oldest first."""
    return [gate for gate in task.gates if gate.agentInstance == agent and gate.kind == "worker-blocked"]


def wait_for_person(ws: Workspace, task: Task, gate_ids: list[str]) -> tuple[list[Event], list[str]]:
    """The move to ``input-required`` while the gates ``gate_ids`` wait (none when
    nothing waits or the task is already there), and a notice when the task's state
    cannot make that move (each notice is also logged as a warning)."""
    if not gate_ids or task.state == "input-required":
        return [], []
    if can_transition(task.state, "input-required"):
        reason = "a worker is blocked: " + ", ".join(gate_ids)
        return [transition_event(ws, task, "input-required", reason=reason)], []
    notice = f"task {task.id} stays {task.state}: a {task.state} task cannot become input-required"
    log.warning("%s", notice)
    return [], [notice]


def _gate_payload(result: WorkerResult) -> dict[str, object]:
    """The ``gate.blocked`` payload fields (all but ``gateId``) for a blocked worker."""
    assert result.output is not None
    payload = gate_fields(
        result.agent_id,
        f"worker {result.agent_id} is blocked: {one_line(result.output.summary, 200)}",
        result.output.questions,
        more_in=result.file,
    )
    return {**payload, "outputDigest": result.digest}


def gate_fields(agent: str, reason: str, questions: list[str], *, more_in: str) -> dict[str, object]:
    """The ``gate.blocked`` payload of a ``worker-blocked`` gate (without ``gateId``):
    questions sanitised and capped (:data:`MAX_GATE_QUESTIONS`, :data:`QUESTION_CHARS`),
    the rest named as being in ``more_in``."""
    kept = [sanitize(question, QUESTION_CHARS) for question in questions[:MAX_GATE_QUESTIONS]]
    extra = len(questions) - MAX_GATE_QUESTIONS
    if extra > 0:
        kept.append(f"(+{extra} more questions in {more_in})")
    return {
        "kind": "worker-blocked",
        "reason": reason,
        "agentInstance": agent,
        "questions": kept,
        "instructionsRef": INSTRUCTIONS_REF,
    }


def _differs(gate: Gate, payload: dict[str, object]) -> bool:
    """Whether an open gate must be updated to match the worker's current output."""
    return (gate.reason, gate.questions, gate.outputDigest) != (
        payload["reason"],
        payload["questions"],
        payload["outputDigest"],
    )


def new_gate_id(agent: str, number: int, taken: set[str]) -> str:
    """``g-<agent>-<n>``: the n-th gate of a worker (the agent part is cut to keep the
    id within 64 characters; the number grows past any id already taken)."""
    stem = f"g-{agent[:52]}"
    while f"{stem}-{number}" in taken:
        number += 1
    return f"{stem}-{number}"


def read_joined_summary(ws: Workspace, task_id: str) -> str | None:
    """The task's joined-summary.md as text (None: not joined yet), for a front to show.

    Raises:
        InvalidFile: it is not a regular file, or too large.
    """
    path = ws.reports_dir(task_id) / REPORT_MD
    data = read_optional(path, shown=ws.rel(path))
    return data.decode("utf-8", "replace") if data is not None else None
