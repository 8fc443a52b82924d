"""Deciding a gate: ``teamdeck gate approve | reject`` (spec 000); the gates as they are
(``teamdeck gate list``) are read by protocol/task/gates.py.

A gate is a point where a person must decide (task.yaml ``gates[]``). Deciding one
appends ``gate.approved`` / ``gate.rejected`` (payload ``gateId``, ``agentInstance``,
``by``, ``note``) before task.yaml is replaced (R11), then writes the decision under
the gate's section of ``shared/human-notes.md``.

What a decision does beyond recording itself depends on the gate's kind: each kind has
a rule in protocol/effects/gate_kinds.py (``GATE_RULES``, one visible table) whose effect returns
the extra events. ``worker-blocked`` returns the task to ``working`` once no gate waits
any more (a kind without a rule behaves like it). The decision is here, above the task
files, the delegation and every kind's rule, because it reaches into all of them.

When the task belongs to a team, the worker the gate names (``agentInstance``; for a
gate that names none, every delegated worker) is then told in its Claude Code inbox,
from the team lead (protocol/coordination/delegation.py ``tell_gate_decision``): an agent waiting on
the answer learns it without reading human-notes.md. A task with no team tells nobody.

A kind's rule may also have a **follow-up**:
what the decision sets going in *other* documents once it is on disk, e.g. a decided
``plan-approval`` moves its plan at once. It runs after the task's transaction, outside
its lock (it may take other locks), and cannot undo the decision: a failure becomes a
notice, and the next command that drives that document catches up.

A decision's effects are **owed** until done (F24). When its human-notes.md entry or a
worker's message fails (a full disk), the decision's intent (protocol/common/intents.py)
is kept rather than removed, and :func:`finish_decision` completes it on the next
command, ``teamdeck doctor --repair`` or the TUI's start, as after a crash; the change
lists what is owed (``owed``), and every front says the decision is not done (the CLI
exits 3). Before, the intent was removed all the same: the person was told the worker
was not sent the message, a retry said "already approved", and nothing ever sent it.
"""

from __future__ import annotations

import logging
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from teamdeck.errors import Conflict, NotFound, Refused, TeamdeckError, WriteFailed
from teamdeck.model.event import Event
from teamdeck.model.task import GateAnswer, GateState, Task
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.common.intents import Running, intent
from teamdeck.protocol.coordination.delegation import tell_gate_decision
from teamdeck.protocol.effects.gate_kinds import rule_of
from teamdeck.protocol.task.gates import already_decided
from teamdeck.protocol.task.human_notes import sync_human_notes
from teamdeck.protocol.task.replay import apply_event
from teamdeck.protocol.task.taskfile import TaskChange, load_task, transact
from teamdeck.store.paths import shown
from teamdeck.store.workspace import Workspace

log = logging.getLogger(__name__)

DECIDED: dict[str, GateState] = {"approve": "approved", "reject": "rejected"}


def decide_gate(ws: Workspace, task_id: str, gate_id: str, decision: GateAnswer, note: str | None = None) -> GateChange:
    """Approve or reject a blocked gate.

    Args:
        ws: the workspace (``ws.actor`` is recorded as ``decidedBy``).
        task_id: the task.
        gate_id: the gate.
        decision: ``"approve"`` or ``"reject"``.
        note: why (required to reject); recorded in the gate, the event and human-notes.md.

    Returns:
        The task after the decision and the events appended; ``notices`` says if
        human-notes.md could not be updated or a worker could not be told (each also
        logged as a warning; the decision itself is recorded), and, like ``said``,
        which workers were told and what the follow-up moved; ``owed`` holds the
        effects that failed (the first two kept for the completer, F24).

    Raises:
        Refused: unknown decision, or a reject without a note (nothing written).
        NotFound: no such task or gate (nothing written).
        Conflict: the gate was already decided; the message names who and when.
        ReadOnly, Busy, InvalidFile, WriteFailed: nothing written, or (WriteFailed
            after the event append) recorded and applied by the next command.
    """
    if decision not in DECIDED:
        raise Refused(f"Unknown decision '{shown(str(decision))}': use approve or reject")
    action = f"{decision} gate {shown(gate_id)}"
    note = note.strip() if note and note.strip() else None
    if decision == "reject" and note is None:
        raise Refused(
            f"Could not {action}: a note is required to reject (say why, for the worker); nothing was changed"
        )

    finishing = ExitStack()
    running: list[Running] = []

    def decide(task: Task) -> list[Event]:
        gate = task.gate(gate_id)
        if gate is None:
            known = ", ".join(gate.id for gate in task.gates) or "none"
            raise NotFound(
                f"Could not {action}: task {task.id} has no gate '{shown(gate_id)}' (its gates: {known}); nothing was changed"
            )
        if gate.state != "blocked":
            raise Conflict(f"Could not {action}: {already_decided(ws, gate)}; nothing was changed")
        event = new_event(
            ws,
            f"gate.{DECIDED[decision]}",
            {"gateId": gate.id, "agentInstance": gate.agentInstance, "by": ws.actor, "note": note},
        )
        after = Task.model_validate(apply_event(task.model_dump(mode="json"), event))
        decided = after.gate(gate.id)
        assert decided is not None
        effects = [event, *rule_of(gate.kind).effect(ws, after, decided, decision)]
        # The intent, under the task's lock, once the task is read and the gate known to
        # be open (a refused decision leaves none) and before the decision is appended:
        # from here on a crash still gets the decision its effects (F17).
        running.append(
            finishing.enter_context(intent(ws, "gate.decide", finish=finish_decision, task=task_id, gate=gate_id))
        )
        return effects

    ws.require_writable(action)  # before the intent is recorded: a read-only mount is said as such
    with finishing:
        try:
            change = transact(ws, task_id, decide, action=action)
        except WriteFailed as err:
            raise WriteFailed(f"Could not {action}: {err}") from err
        notices, said = _record_and_tell(ws, change.task, gate_id)
        owed = [*notices]
        if owed:
            notices.append(_keep(ws, running, owed))
        moved, failed = _follow_up(ws, change.task, gate_id, decision)
    said += moved
    owed += failed
    notices += [*said, *failed]
    return GateChange(change.task, change.events, (*change.notices, *notices), owed=tuple(owed), said=tuple(said))


def _keep(ws: Workspace, running: list[Running], failed: list[str]) -> str:
    """Keep the decision's intent for the effects that ``failed`` (F24); returns the
    line that says so (also logged as a warning)."""
    for each in running:
        each.owe(*failed)
    kept = ", ".join(str(ws.rel(each.path)) for each in running)
    line = (
        f"the decision is not done: {kept} is kept, and `teamdeck doctor --repair` or the next "
        "teamdeck command finishes what failed"
    )
    log.warning("%s", line)
    return line


def _record_and_tell(ws: Workspace, task: Task, gate_id: str) -> tuple[list[str], list[str]]:
    """Write the decision into human-notes.md and tell the worker(s); both idempotent
    (the notes are derived from task.yaml, the messages are keyed), so an interrupted
    decision is finished by running this again.

    Returns:
        Warnings, and what was said (workers told).
    """
    notices: list[str] = []
    try:
        sync_human_notes(ws, task, record=frozenset({gate_id}))
    except TeamdeckError as err:
        notice = f"the decision is recorded, but human-notes.md was not updated ({err}); the next join adds it"
        log.warning("%s", notice)
        notices.append(notice)
    told, not_told = tell_gate_decision(ws, task, gate_id)
    said = [f"told {', '.join(told)} (team {task.team}) in their inbox"] if told else []
    for notice in not_told:
        notice = f"the decision is recorded, but {notice}"
        log.warning("%s", notice)
        notices.append(notice)
    return notices, said


def finish_decision(ws: Workspace, args: dict[str, Any]) -> list[str]:
    """The ``gate.decide`` intent's completer: a decision on disk gets its note in
    human-notes.md and its messages; a gate still blocked was never decided (nothing to
    do). What follows the decision in other documents (a plan moved) is caught up by
    the next command that drives them, as after any failed follow-up."""
    task_id, gate_id = str(args.get("task", "")), str(args.get("gate", ""))
    try:
        task = load_task(ws, task_id)
    except NotFound:
        return []
    gate = task.gate(gate_id)
    if gate is None or gate.state == "blocked":
        return []
    notices, said = _record_and_tell(ws, task, gate_id)
    if notices:
        raise WriteFailed("; ".join(notices))
    return [f"gate {gate_id} of task {task_id} {gate.state}: human-notes.md up to date", *said]


@dataclass(frozen=True)
class GateChange(TaskChange):
    """What :func:`decide_gate` did: a :class:`TaskChange` whose ``notices`` hold every
    line for the person, and ``said`` the ones that report what followed (workers told,
    a plan moved) rather than warn (the warnings are also logged)."""

    said: tuple[str, ...] = ()


def _follow_up(ws: Workspace, task: Task, gate_id: str, decision: GateAnswer) -> tuple[list[str], list[str]]:
    """Run the follow-up of the decided gate's kind.

    Returns:
        What it reports, and its failure as a notice (also logged).
    """
    gate = task.gate(gate_id)
    follow_up = rule_of(gate.kind).follow_up if gate is not None else None
    if gate is None or follow_up is None:
        return [], []
    try:
        return follow_up(ws, task, gate, decision), []
    except TeamdeckError as err:
        notice = f"the decision is recorded, but what follows it did not run ({err})"
        log.warning("%s", notice)
        return [], [notice]
