"""What each key does to the files: one protocol call per action, as a :class:`RunAction`
message the widget posts; the app hands it to its action runner (live/runner.py), which
runs the calls one at a time and has exactly the paths each wrote read (recorded by the
store's seam, protocol/common/written.py). Nothing here writes a file itself, names the files
a call touches, or shows anything optimistic.

Each call imports its protocol module when it runs, on the worker: the first frame does
not wait for modules only an action needs, and the UI thread never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.decisions import registry as decisions
from teamdeck.live.runner import Action
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot import Decision, MemberView

if TYPE_CHECKING:
    from teamdeck.decisions.spec import Answer
    from teamdeck.store.workspace import Workspace


def answer(decision: Decision, answer: Answer, note: str | None) -> RunAction:
    """Answer ``decision`` (any kind) with ``answer``, one of its spec's two: the spec
    runs its protocol call (decisions/kinds.py)."""
    what = decisions.spec_of(decision).what(decision)

    def call(ws: Workspace) -> str:
        from teamdeck.adapters.forge_outbox import deliver_if_configured

        summary = decisions.answer_decision(ws, decision, answer.action, note)[1].summary
        return "; ".join([summary, *deliver_if_configured(ws)])  # what it queued for Gitea, if anything

    return RunAction(Action(f"{answer.action.replace('_', ' ')} {what}", call))


def message(member: MemberView, summary: str, text: str) -> RunAction:
    """Send ``member`` a message from the team lead."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.messaging.sending import send_message

        sent = send_message(ws, member.team, member.name, text, summary=summary)
        return f"message sent to {member.name}" + _warnings(sent.warnings)

    return RunAction(Action(f"send a message to {member.name}", call))


def broadcast_to(team: str, summary: str, text: str) -> RunAction:
    """Send every member of ``team`` (but the lead) a message."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.messaging.sending import broadcast

        sent = broadcast(ws, team, text, summary=summary)
        return f"broadcast sent to {len(sent.recipients)} member(s) of {team}" + _warnings(sent.warnings)

    return RunAction(Action(f"broadcast to team {team}", call))


def shutdown(member: MemberView, reason: str | None) -> RunAction:
    """Ask ``member`` to shut down (the handshake then shows in the roster)."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown

        sent = request_shutdown(ws, member.team, member.name, reason=reason)
        return f"shutdown request sent to {member.name} ({sent.request_id})"

    return RunAction(Action(f"ask {member.name} to shut down", call))


def deactivate(member: MemberView) -> RunAction:
    """Mark ``member`` inactive (guarded: only after it approved a shutdown)."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.team.messaging.handshake_writes import deactivate_member

        name = deactivate_member(ws, member.team, member.name)
        return f"{name} marked inactive"

    return RunAction(Action(f"deactivate {member.name}", call))


def run_request(member: MemberView, kind: str) -> RunAction:
    """Ask the runner (``teamdeck run``) to ``wake`` or ``stop`` ``member``."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.runs.requests import request
        from teamdeck.view.runs import runner_holder

        request(ws, kind, member.team, member.name)
        done = "wake of" if kind == "wake" else "stop of the run of"
        if runner_holder(ws) is None:
            return f"{done} {member.name} asked, but no runner runs this workspace: start `teamdeck run`"
        return f"{done} {member.name} asked of the runner"

    return RunAction(Action(f"{kind} {member.name}", call))


def join(task_id: str) -> RunAction:
    """Run the join of ``task_id`` again."""

    def call(ws: Workspace) -> str:
        from teamdeck.protocol.task.join import join_task

        result = join_task(ws, task_id)
        opened = f"; opened {', '.join(result.gates_opened)}" if result.gates_opened else ""
        return f"joined task {task_id}: {result.summary.totals.total} worker(s){opened}"

    return RunAction(Action(f"join task {task_id}", call))


def _warnings(warnings: tuple[str, ...]) -> str:
    return f" ({'; '.join(warnings)})" if warnings else ""
