"""What each key does to the files: one protocol call per action, run by the app on a
worker (:meth:`TeamdeckApp.perform`), which refreshes exactly the paths the call wrote
(recorded by the store's seam, protocol/written.py). Nothing here writes a file itself,
names the files a call touches, or shows anything optimistic.

Each call imports its protocol module when it runs, on the worker: the first frame does
not wait for modules only an action needs, and the UI thread never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.decisions import registry as decisions
from teamdeck.view.snapshot import Decision, MemberView

if TYPE_CHECKING:
    from teamdeck.decisions.spec import Answer
    from teamdeck.tui.app import TeamdeckApp


def answer(app: TeamdeckApp, decision: Decision, answer: Answer, note: str | None) -> None:
    """Answer ``decision`` (any kind) with ``answer``, one of its spec's two: the spec
    runs its protocol call (decisions/kinds.py)."""
    what = decisions.spec_of(decision).what(decision)

    def call() -> str:
        from teamdeck.adapters.forge_outbox import deliver_if_configured

        summary = decisions.answer_decision(app.ws, decision, answer.action, note)[1].summary
        return "; ".join([summary, *deliver_if_configured(app.ws)])  # what it queued for Gitea, if anything

    app.perform(f"{answer.action.replace('_', ' ')} {what}", call)


def message(app: TeamdeckApp, member: MemberView, summary: str, text: str) -> None:
    """Send ``member`` a message from the team lead."""

    def call() -> str:
        from teamdeck.protocol.messaging.sending import send_message

        sent = send_message(app.ws, member.team, member.name, text, summary=summary)
        return f"message sent to {member.name}" + _warnings(sent.warnings)

    app.perform(f"send a message to {member.name}", call)


def broadcast_to(app: TeamdeckApp, team: str, summary: str, text: str) -> None:
    """Send every member of ``team`` (but the lead) a message."""

    def call() -> str:
        from teamdeck.protocol.messaging.sending import broadcast

        sent = broadcast(app.ws, team, text, summary=summary)
        return f"broadcast sent to {len(sent.recipients)} member(s) of {team}" + _warnings(sent.warnings)

    app.perform(f"broadcast to team {team}", call)


def shutdown(app: TeamdeckApp, member: MemberView, reason: str | None) -> None:
    """Ask ``member`` to shut down (the handshake then shows in the roster)."""

    def call() -> str:
        from teamdeck.protocol.messaging.handshakes import request_shutdown

        sent = request_shutdown(app.ws, member.team, member.name, reason=reason)
        return f"shutdown request sent to {member.name} ({sent.request_id})"

    app.perform(f"ask {member.name} to shut down", call)


def deactivate(app: TeamdeckApp, member: MemberView) -> None:
    """Mark ``member`` inactive (guarded: only after it approved a shutdown)."""

    def call() -> str:
        from teamdeck.protocol.messaging.handshakes import deactivate_member

        name = deactivate_member(app.ws, member.team, member.name)
        return f"{name} marked inactive"

    app.perform(f"deactivate {member.name}", call)


def run_request(app: TeamdeckApp, member: MemberView, kind: str) -> None:
    """Ask the runner (``teamdeck run``) to ``wake`` or ``stop`` ``member``."""

    def call() -> str:
        from teamdeck.protocol.run_requests import request
        from teamdeck.view.runs import runner_holder

        request(app.ws, kind, member.team, member.name)
        done = "wake of" if kind == "wake" else "stop of the run of"
        if runner_holder(app.ws) is None:
            return f"{done} {member.name} asked, but no runner runs this workspace: start `teamdeck run`"
        return f"{done} {member.name} asked of the runner"

    app.perform(f"{kind} {member.name}", call)


def join(app: TeamdeckApp, task_id: str) -> None:
    """Run the join of ``task_id`` again."""

    def call() -> str:
        from teamdeck.protocol.join import join_task

        result = join_task(app.ws, task_id)
        opened = f"; opened {', '.join(result.gates_opened)}" if result.gates_opened else ""
        return f"joined task {task_id}: {result.summary.totals.total} worker(s){opened}"

    app.perform(f"join task {task_id}", call)


def _warnings(warnings: tuple[str, ...]) -> str:
    return f" ({'; '.join(warnings)})" if warnings else ""
