"""The supervisor's verification loop (seed 003): assign a guardian, run it, record its
verdict, apply it.

:func:`verify` walks one assignment through four task transactions, each an event
appended before task.yaml is replaced, so a crash at any point leaves a task that the
next ``teamdeck verify`` resumes (task.yaml ``verification.step`` says how far it got):

1. assign: ``task.ready_for_verification``, ``guardian.assigned`` (the whole
   GuardianAssignment), ``task.state_changed`` working → verifying; then the write-once
   file ``guardian/assignments/<id>.json``;
2. start: ``guardian.verification_started``, ``task.state_changed`` → guard-review;
3. run the guardian (outside every lock, in a child process with a hard timeout), then
   record: ``guardian.verdict_recorded`` (the whole GuardianVerdictSnapshot) and the
   write-once file ``guardian/verdicts/<id>.json``;
4. apply: ``guardian.verdict_applied`` and ``task.state_changed``: PASS → verified,
   NEEDS_CHANGES → working (the recommendations go to the task's workers as a message),
   FAIL → input-required with a ``verification-failed`` gate for a person (approve =
   retry, reject = give up).

Idempotent by assignment: an assignment that is not applied yet is resumed, never
duplicated; a verdict already recorded is applied, not recomputed; two supervisors
racing record one verdict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic import ValidationError

from teamdeck.clock import iso
from teamdeck.errors import InvalidFile, Refused
from teamdeck.ids import new_ulid
from teamdeck.model.event import Event
from teamdeck.model.guardian import GuardianAssignment, GuardianResult, GuardianVerdictSnapshot, VerdictStatus
from teamdeck.model.task import Task, TaskState
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.guardians.context import GuardianContext
from teamdeck.protocol.guardians.process import Isolation, run_guardian
from teamdeck.protocol.guardians.registry import check_code
from teamdeck.protocol.task.allowed import can_verify
from teamdeck.protocol.task.human_notes import sync_human_notes
from teamdeck.protocol.task.lifecycle import can_transition, refusal, transition, transition_event
from teamdeck.protocol.task.taskfile import load_task, read_events, transact
from teamdeck.store.loaders import dumps_json
from teamdeck.store.workspace import Workspace
from teamdeck.store.write_once import write_once

DEFAULT_GUARDIAN = "schema"
DEFAULT_TIMEOUT_S = 120.0
TARGET: dict[VerdictStatus, TaskState] = {"PASS": "verified", "NEEDS_CHANGES": "working", "FAIL": "input-required"}
"""Where a verdict sends a task from guard-review."""
FAIL_GATE_QUESTIONS = [
    "Retry (approve: the task goes back to working and can be verified again) or give up (reject: the task fails)?"
]
_MAX_TEXT = 2000
_MAX_ITEMS = 100
_MAX_PAYLOAD = 48 * 1024


@dataclass(frozen=True)
class VerificationRun:
    """What :func:`verify` did.

    Attributes:
        task: the task afterwards.
        assignment: the assignment that was created or resumed.
        verdict: the verdict recorded (or found recorded) for it.
        events: every event appended, in order.
        resumed: an unfinished assignment was resumed instead of a new one made.
        gate_id: the ``verification-failed`` gate opened by a FAIL.
        notified: members the recommendations were sent to (NEEDS_CHANGES).
        notices: what a person should know (messages that could not be delivered...).
    """

    task: Task
    assignment: GuardianAssignment
    verdict: GuardianVerdictSnapshot
    events: list[Event] = field(default_factory=list)
    resumed: bool = False
    gate_id: str | None = None
    notified: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def record_id(ws: Workspace, prefix: str) -> str:
    """A new record id: ``<prefix>-<ulid in lower case>`` (sortable, safe as a file name)."""
    return f"{prefix}-{new_ulid(ws.clock()).lower()}"


def verify(
    ws: Workspace,
    task_id: str,
    *,
    guardian: str | None = None,
    reason: str = "",
    timeout_s: float | None = None,
    isolation: Isolation = "process",
    complete: bool = False,
) -> VerificationRun:
    """Verify a task with a guardian and apply the verdict (the whole loop, see the module).

    Args:
        ws: the workspace.
        task_id: the task; it must be working (or verifying / guard-review to resume).
        guardian: the guardian's code (default: the task's ``guardian.code``, else schema).
        reason: why, recorded in the assignment.
        timeout_s: the guardian's time limit (default: the task's ``guardian.timeoutS``).
        isolation: ``process`` (default; a hard timeout) or ``thread`` (tests).
        complete: after a PASS, also move the task verified → done.

    Returns:
        What happened (:class:`VerificationRun`).

    Raises:
        Refused: the task cannot be verified in its state (naming the legal next
            states), or another guardian's assignment is still open.
        NotFound: no such task or guardian.
        ReadOnly, Busy, WriteFailed, InvalidFile: see transact.
    """
    events: list[Event] = []
    assignment, resumed = _assign(ws, task_id, guardian, reason, timeout_s, events)
    task = load_task(ws, task_id)
    verdict = _recorded_verdict(ws, task, assignment.id)
    if verdict is None:
        task = _start(ws, assignment, events)
        context = GuardianContext(
            str(ws.root),
            task_id,
            assignment.id,
            task.model_dump(mode="json"),
            task.guardian.model_dump(mode="json") if task.guardian else {},
        )
        outcome = run_guardian(assignment.guardian, context, timeout_s=assignment.timeoutS, isolation=isolation)
        verdict = _record(ws, assignment, outcome.result, outcome.duration_s, events)
    write_once(ws.verdict_file(task_id, verdict.id), _record_bytes(verdict))
    change = transact(
        ws,
        task_id,
        lambda current: _apply_events(ws, current, assignment, verdict),
        action=f"apply verdict {verdict.id} to task {task_id}",
    )
    events.extend(change.events)
    task = change.task
    run = VerificationRun(task, assignment, verdict, events, resumed)
    if verdict.status == "FAIL" and fail_gate_id(assignment.id) in {gate.id for gate in task.open_gates}:
        sync_human_notes(ws, task)
        run = replace(run, gate_id=fail_gate_id(assignment.id))
    elif verdict.status == "NEEDS_CHANGES" and change.events:
        run = replace(run, **_deliver_recommendations(ws, task, verdict))
    elif verdict.status == "PASS" and complete and task.state == "verified":
        done = transition(ws, task_id, "done", reason=f"verified by {assignment.guardian} ({verdict.id})")
        events.extend(done.events)
        run = replace(run, task=done.task)
    return run


def fail_gate_id(assignment_id: str) -> str:
    """The id of the gate a FAIL verdict of ``assignment_id`` opens (``vf-<ulid>``)."""
    return "vf-" + assignment_id.removeprefix("ga-")


# --- 1. assign ---------------------------------------------------------------------
def _assign(
    ws: Workspace, task_id: str, guardian: str | None, reason: str, timeout_s: float | None, events: list[Event]
) -> tuple[GuardianAssignment, bool]:
    made: list[GuardianAssignment] = []

    def decide(task: Task) -> list[Event]:
        made.clear()
        open_assignment = task.verification if task.verification and task.verification.step != "applied" else None
        if open_assignment is not None and task.state in ("verifying", "guard-review"):
            if guardian and guardian != open_assignment.guardian:
                raise Refused(
                    f"Task {task.id} is being verified by guardian {open_assignment.guardian} "
                    f"({open_assignment.assignment}); run teamdeck verify without --guardian to finish it"
                )
            made.append(_assignment_from_log(ws, task.id, open_assignment.assignment))
            return []
        if not can_verify(task.state):
            raise refusal(task, "verifying")
        config = task.guardian
        code = check_code(guardian or (config.code if config else DEFAULT_GUARDIAN))
        limit = timeout_s or (config.timeoutS if config else DEFAULT_TIMEOUT_S)
        assignment = GuardianAssignment(
            id=record_id(ws, "ga"),
            task=task.id,
            guardian=code,
            timeoutS=float(limit),
            reason={"why": reason or "verification requested", "state": task.state},
            createdAt=iso(ws.clock()),
            createdBy=ws.actor,
        )
        made.append(assignment)
        added = [
            new_event(ws, "task.ready_for_verification", {"guardian": code, "reason": assignment.reason["why"]}),
            new_event(ws, "guardian.assigned", {"assignment": assignment.model_dump(mode="json")}),
        ]
        if task.state == "working":
            added.append(transition_event(ws, task, "verifying", reason=f"guardian {code} assigned ({assignment.id})"))
        return added

    change = transact(ws, task_id, decide, action=f"verify task {task_id}")
    events.extend(change.events)
    assignment = made[0]
    write_once(ws.assignment_file(task_id, assignment.id), _record_bytes(assignment))
    return assignment, not change.events


def _assignment_from_log(ws: Workspace, task_id: str, assignment_id: str) -> GuardianAssignment:
    for event in reversed(read_events(ws, task_id)):
        if event.type == "guardian.assigned" and event.payload.get("assignment", {}).get("id") == assignment_id:
            return GuardianAssignment.model_validate(event.payload["assignment"])
    raise InvalidFile(
        ws.rel(ws.events_file(task_id)),
        "",
        f"task.yaml names assignment {assignment_id} but no guardian.assigned event records it",
    )


# --- 2. start ----------------------------------------------------------------------
def _start(ws: Workspace, assignment: GuardianAssignment, events: list[Event]) -> Task:
    def decide(task: Task) -> list[Event]:
        current = task.verification
        if current is None or current.assignment != assignment.id or current.step not in ("assigned", "started"):
            return []
        attempt = 1 + sum(
            1
            for event in read_events(ws, task.id)
            if event.type == "guardian.verification_started" and event.payload.get("assignmentId") == assignment.id
        )
        added = [
            new_event(
                ws,
                "guardian.verification_started",
                {"assignmentId": assignment.id, "guardian": assignment.guardian, "attempt": attempt},
            )
        ]
        if task.state == "verifying":
            added.append(
                transition_event(
                    ws, task, "guard-review", reason=f"guardian {assignment.guardian} started ({assignment.id})"
                )
            )
        return added

    change = transact(
        ws, assignment.task, decide, action=f"start guardian {assignment.guardian} on task {assignment.task}"
    )
    events.extend(change.events)
    return change.task


# --- 3. record ---------------------------------------------------------------------
def _record(
    ws: Workspace, assignment: GuardianAssignment, result: GuardianResult, duration_s: float, events: list[Event]
) -> GuardianVerdictSnapshot:
    verdict = GuardianVerdictSnapshot(
        id=record_id(ws, "gv"),
        assignment=assignment.id,
        task=assignment.task,
        guardian=assignment.guardian,
        status=result.verdict_status(),
        flags=result.flags[:_MAX_ITEMS],
        evidence=_bounded(result.evidence),
        recommendations=[_bounded(text) for text in result.recommendations[:_MAX_ITEMS]],
        durationS=duration_s,
        createdAt=iso(ws.clock()),
    )
    if len(dumps_json(verdict.model_dump(mode="json"))) > _MAX_PAYLOAD:
        verdict = verdict.model_copy(update={"evidence": {"truncated": "the evidence was too large to keep"}})
    kept: list[GuardianVerdictSnapshot] = []

    def decide(task: Task) -> list[Event]:
        kept.clear()
        current = task.verification
        if current is not None and current.assignment == assignment.id and current.step == "started":
            kept.append(verdict)
            return [
                new_event(
                    ws,
                    "guardian.verdict_recorded",
                    {"assignmentId": assignment.id, "verdict": verdict.model_dump(mode="json")},
                    actor=f"guardian:{assignment.guardian}",
                )
            ]
        earlier = _recorded_verdict(ws, task, assignment.id)
        if earlier is None:
            raise Refused(
                f"Task {task.id} moved on while guardian {assignment.guardian} ran (it is {task.state}); its verdict was not recorded"
            )
        kept.append(earlier)  # another supervisor recorded first: its verdict stands
        return []

    change = transact(
        ws,
        assignment.task,
        decide,
        action=f"record the verdict of guardian {assignment.guardian} on task {assignment.task}",
    )
    events.extend(change.events)
    return kept[0]


def _recorded_verdict(ws: Workspace, task: Task, assignment_id: str) -> GuardianVerdictSnapshot | None:
    current = task.verification
    if current is None or current.assignment != assignment_id or current.step not in ("recorded", "applied"):
        return None
    for event in reversed(read_events(ws, task.id)):
        if event.type == "guardian.verdict_recorded" and event.payload.get("assignmentId") == assignment_id:
            return GuardianVerdictSnapshot.model_validate(event.payload["verdict"])
    return None


def _bounded(value: Any) -> Any:
    """``value`` with long strings and lists cut, so a verdict stays one small record."""
    if isinstance(value, str):
        return value if len(value) <= _MAX_TEXT else value[:_MAX_TEXT] + f"… ({len(value):,} characters)"
    if isinstance(value, list):
        return [_bounded(item) for item in value[:_MAX_ITEMS]]
    if isinstance(value, dict):
        return {str(key): _bounded(item) for key, item in list(value.items())[:_MAX_ITEMS]}
    return value


# --- 4. apply ----------------------------------------------------------------------
def _apply_events(
    ws: Workspace, task: Task, assignment: GuardianAssignment, verdict: GuardianVerdictSnapshot
) -> list[Event]:
    current = task.verification
    if current is None or current.assignment != assignment.id or current.step != "recorded":
        return []
    target = TARGET[verdict.status]
    moves = task.state == "guard-review" and can_transition(task.state, target)
    applied = new_event(
        ws,
        "guardian.verdict_applied",
        {
            "assignmentId": assignment.id,
            "verdictId": verdict.id,
            "status": verdict.status,
            "from": task.state,
            "to": target if moves else task.state,
        },
    )
    if not moves:
        return [applied]  # a person moved the task meanwhile: the verdict is kept, the state is theirs
    added = [applied]
    if verdict.status == "FAIL":
        first = verdict.flags[0].message if verdict.flags else "no reason given"
        added.append(
            new_event(
                ws,
                "gate.blocked",
                {
                    "gateId": fail_gate_id(assignment.id),
                    "kind": "verification-failed",
                    "agentInstance": None,
                    "reason": f"guardian {verdict.guardian} said FAIL ({verdict.id}): {first}"[:500],
                    "questions": FAIL_GATE_QUESTIONS,
                    "instructionsRef": "./shared/human-notes.md",
                },
            )
        )
    added.append(transition_event(ws, task, target, reason=f"verdict {verdict.id}: {verdict.status}"))
    return added


def _deliver_recommendations(ws: Workspace, task: Task, verdict: GuardianVerdictSnapshot) -> dict[str, Any]:
    """Send NEEDS_CHANGES recommendations to the task's workers (see protocol/delegation)."""
    from teamdeck.protocol.coordination.delegation import notify_workers

    lines = [f"Guardian {verdict.guardian} asks for changes to task {task.id} (verdict {verdict.id}):"]
    lines += [f"- {text}" for text in verdict.recommendations] or [f"- {flag.message}" for flag in verdict.flags]
    lines.append(f"Make the changes, then report on task {task.id} again (report_to_parent, or `teamdeck report`).")
    notified, notices = notify_workers(ws, task, "\n".join(lines), summary=f"Changes needed on {task.id}")
    return {"notified": notified, "notices": notices}


def _record_bytes(record: GuardianAssignment | GuardianVerdictSnapshot) -> bytes:
    return (json.dumps(record.model_dump(mode="json"), ensure_ascii=False, allow_nan=False, indent=2) + "\n").encode()


def configure_guardian(
    ws: Workspace,
    task_id: str,
    *,
    code: str | None = None,
    timeout_s: float | None = None,
    command: str | list[str] | None = None,
    cwd: str | None = None,
    command_timeout_s: float | None = None,
    needs_changes_exit: int | None = None,
    on_review: bool | None = None,
    retries: int | None = None,
) -> Any:
    """Set how the task is verified (``guardian`` in task.yaml) with a ``guardian.configured`` event.

    Unnamed settings keep their current values.

    Raises:
        NotFound: no such task or guardian.
        Refused: nothing to change, or the settings are not valid.
    """
    from teamdeck.model.task import CommandCheck, GuardianConfig

    if code is not None:
        check_code(code)

    def decide(task: Task) -> list[Event]:
        config = task.guardian.model_dump(mode="json") if task.guardian else {}
        if code is not None:
            config["code"] = code
        if timeout_s is not None:
            config["timeoutS"] = float(timeout_s)
        if on_review is not None:
            config["onReview"] = on_review
        if retries is not None:
            config["retries"] = retries
        if command is not None or cwd is not None or command_timeout_s is not None or needs_changes_exit is not None:
            check = dict(config.get("command") or {})
            if command is not None:
                check["run"] = command
            if cwd is not None:
                check["cwd"] = cwd
            if command_timeout_s is not None:
                check["timeoutS"] = float(command_timeout_s)
            if needs_changes_exit is not None:
                check["needsChangesExit"] = needs_changes_exit
            if "run" not in check:
                raise Refused(f"Could not configure task {task.id}: a command check needs --command")
            config["command"] = CommandCheck.model_validate(check).model_dump(mode="json")
        try:
            new = GuardianConfig.model_validate(config).model_dump(mode="json")
        except ValidationError as err:
            raise Refused(
                f"Could not configure task {task.id}: {err.errors()[0]['loc']}: {err.errors()[0]['msg']}"
            ) from None
        if task.guardian is not None and new == task.guardian.model_dump(mode="json"):
            return []
        return [new_event(ws, "guardian.configured", {"guardian": new})]

    return transact(ws, task_id, decide, action=f"configure the guardian of task {task_id}")
