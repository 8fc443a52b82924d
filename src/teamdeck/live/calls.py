"""Every action a person can take, as an :class:`~teamdeck.live.actions.Action` built from
plain ids: one protocol call each, returning the line the person is shown.

The fronts that host a live workspace build their actions here and nowhere else: the
TUI's panels (tui/panels/*/actions.py, from the row a key was pressed on) and
``teamdeck serve`` (serve/requests.py, from a client's request), so an action asked from
another machine does exactly what the key does here. Each call imports its protocol
module when it runs, on the action thread: the TUI's first frame does not wait for
modules only an action needs, and its UI thread never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.decisions import registry as decisions
from teamdeck.errors import NotDone
from teamdeck.live.actions import Action

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace
    from teamdeck.view.snapshot.workspace import Decision


def answer(decision: Decision, word: str, note: str | None) -> Action:
    """Answer ``decision`` (any kind) with ``word``, one of its spec's two answers: the
    spec runs its protocol call (decisions/kinds.py); what that queued for Gitea is
    delivered when a forge is configured. An answer that still owes effects is not done
    (:func:`_done`)."""
    what = decisions.spec_of(decision).what(decision)

    def call(ws: Workspace) -> str:
        from teamdeck.adapters.forge_outbox import deliver_if_configured

        answered = decisions.answer_decision(ws, decision, word, note)[1]
        line = "; ".join([answered.summary, *deliver_if_configured(ws)])  # what it queued for Gitea, if anything
        return _done(line, answered.owed)  # the summary says what failed and what is kept

    return Action(f"{word.replace('_', ' ')} {what}", call)


def message(team: str, member: str, summary: str, text: str) -> Action:
    """Send ``member`` of ``team`` a message from the team lead."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.messaging.sending import send_message

        sent = send_message(ws, team, member, text, summary=summary)
        return f"message sent to {member}" + _warnings(sent.warnings)

    return Action(f"send a message to {member}", call)


def broadcast(team: str, summary: str, text: str) -> Action:
    """Send every member of ``team`` (but the lead) a message."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.messaging.sending import broadcast as broadcast_message

        sent = broadcast_message(ws, team, text, summary=summary)
        return f"broadcast sent to {len(sent.recipients)} member(s) of {team}" + _warnings(sent.warnings)

    return Action(f"broadcast to team {team}", call)


def shutdown(team: str, member: str, reason: str | None) -> Action:
    """Ask ``member`` to shut down (the handshake then shows in the roster)."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown

        sent = request_shutdown(ws, team, member, reason=reason)
        return f"shutdown request sent to {member} ({sent.request_id})"

    return Action(f"ask {member} to shut down", call)


def deactivate(team: str, member: str) -> Action:
    """Mark ``member`` inactive (guarded: only after it approved a shutdown)."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.messaging.handshake_writes import deactivate_member

        name = deactivate_member(ws, team, member)
        return f"{name} marked inactive"

    return Action(f"deactivate {member}", call)


def run_request(team: str, member: str, kind: str) -> Action:
    """Ask the runner (``teamdeck run``) to ``wake`` or ``stop`` ``member``; a wake of a
    member no ``agents:`` entry names is refused (the runner would never act on it). A
    stop is not: a run may go on after its entry was removed."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.runs.requests import request
        from teamdeck.runtime.config import named_settings
        from teamdeck.view.readers.runs import runner_holder

        if kind == "wake":
            named_settings(ws, team, member)
        request(ws, kind, team, member)
        done = "wake of" if kind == "wake" else "stop of the run of"
        if runner_holder(ws) is None:
            return f"{done} {member} asked, but no runner runs this workspace: start `teamdeck run`"
        return f"{done} {member} asked of the runner"

    return Action(f"{kind} {member}", call)


def move_task(task_id: str, target: str, reason: str | None) -> Action:
    """Move task ``task_id`` to ``target`` (the lifecycle table decides; a refusal is a notice)."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.task.lifecycle import transition

        change = transition(ws, task_id, target, reason=reason or "moved by a person in teamdeck")
        return f"task {task_id} is {change.task.state}"

    return Action(f"move task {task_id} to {target}", call)


def cancel_task(task_id: str, reason: str | None) -> Action:
    """Cancel task ``task_id``; its open gates are closed."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.task.lifecycle import cancel

        change = cancel(ws, task_id, reason=reason or "")
        return f"task {task_id} is {change.task.state}"

    return Action(f"cancel task {task_id}", call)


def retry_task(task_id: str, note: str | None) -> Action:
    """Retry a blocked task: its verification-failed gates are approved, it works again."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.effects.task_retry import retry

        change = retry(ws, task_id, note=note or "retry")
        return _done(f"task {task_id} is {change.task.state}", change.owed, change.notices)

    return Action(f"retry task {task_id}", call)


def verify_task(task_id: str, reason: str | None) -> Action:
    """Run the task's guardian (in a child process, on the action thread) and apply its verdict."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.guardians.verification import verify

        done = verify(ws, task_id, reason=reason or "asked in teamdeck")
        gate = f"; gate {done.gate_id} waits" if done.gate_id else ""
        return f"task {task_id}: {done.verdict.guardian} said {done.verdict.status}; it is {done.task.state}{gate}"

    return Action(f"verify task {task_id}", call)


def join(task_id: str) -> Action:
    """Run the join of ``task_id`` again."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.task.join import join_task

        result = join_task(ws, task_id)
        opened = f"; opened {', '.join(result.gates_opened)}" if result.gates_opened else ""
        return f"joined task {task_id}: {result.summary.totals.total} worker(s){opened}"

    return Action(f"join task {task_id}", call)


def run_plan(plan_id: str, members: list[str]) -> Action:
    """``teamdeck plan run``: move the plan as far as it can go now."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.plans.machine import advance

        result = advance(ws, plan_id, members=members)
        waits = f"; waits for: {'; '.join(result.waiting)}" if result.waiting else ""
        return f"plan {plan_id} is {result.plan.state} ({len(result.moves)} move(s), {len(result.actions)} action(s)){waits}"

    return Action(f"run plan {plan_id}", call)


def reassign_team_task(team: str, task_id: str, member: str) -> Action:
    """Give task ``task_id`` of ``team``'s task list to ``member`` (who is sent a task_assignment)."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.task_list import update_team_task

        done = update_team_task(ws, team, task_id, owner=member)
        told = f"; {done.told} was sent a task_assignment" if done.told else ""
        return "; ".join([f"task #{task_id} of {team} is now owned by {done.after.owner}{told}", *done.notices])

    return Action(f"reassign task #{task_id} of {team}", call)


def mark_team_task_pending(team: str, task_id: str) -> Action:
    """Set task ``task_id`` of ``team``'s task list back to ``pending`` (its owner kept),
    for anyone to pick up again."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.task_list import update_team_task

        done = update_team_task(ws, team, task_id, status="pending")
        return f"task #{task_id} of {team} is {done.after.status}"

    return Action(f"mark task #{task_id} of {team} pending", call)


def _done(line: str, owed: tuple[str, ...], notices: tuple[str, ...] = ()) -> str:
    """``line``, the action done; while it still owes effects (``owed``: they failed and
    are kept to be finished later), :class:`NotDone` with ``line`` and
    the ``notices`` that say what failed and what is kept: the TUI shows a failure, and
    ``teamdeck serve`` answers ``ok: false``, never "done" (F24)."""
    if owed:
        raise NotDone("; ".join([line, *notices]))
    return line


def _warnings(warnings: tuple[str, ...]) -> str:
    return f" ({'; '.join(warnings)})" if warnings else ""
