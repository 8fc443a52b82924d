"""What each key does to the files: one protocol call per action, run by the app on a
worker (:meth:`TeamdeckApp.perform`), which refreshes exactly the paths the call wrote
(recorded by the store's seam, protocol/written.py). Nothing here writes a file itself,
names the files a call touches, or shows anything optimistic.

Each call imports its protocol module when it runs, on the worker: the first frame does
not wait for modules only an action needs, and the UI thread never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.view.snapshot import GateView, MemberView

if TYPE_CHECKING:
    from teamdeck.protocol.gates import Decision
    from teamdeck.tui.app import TeamdeckApp

DONE = {"approve": "approved", "reject": "rejected"}
"""An answer as done, for the notice ("rejected", not "rejectd")."""


def decide(app: TeamdeckApp, gate: GateView, approve: bool, note: str | None) -> None:
    """Approve or reject a gate: a task gate (``decide_gate``) or a plan approval
    request (``answer_plan``)."""
    verb: Decision = "approve" if approve else "reject"
    if gate.kind == "plan-approval":
        answer(app, gate.team or "", gate.member or "", gate.request_id, approve, note)
        return
    task_id, gate_id = gate.task_id or "", gate.gate_id or ""

    def call() -> str:
        from teamdeck.protocol.gates import decide_gate

        change = decide_gate(app.ws, task_id, gate_id, verb, note)
        return "; ".join([f"gate {gate_id} of task {task_id} {DONE[verb]}", *change.notices])

    app.perform(f"{verb} gate {gate_id}", call)


def answer(
    app: TeamdeckApp, team: str, member: str, request_id: str | None, approve: bool, feedback: str | None
) -> None:
    """Answer a member's plan approval request."""
    verb = "approve" if approve else "reject"

    def call() -> str:
        from teamdeck.protocol.messaging import answer_plan

        sent = answer_plan(app.ws, team, member, approve=approve, feedback=feedback, request_id=request_id)
        return f"plan of {member} {DONE[verb]} ({sent.request_id})"

    app.perform(f"{verb} the plan of {member}", call)


def permit(app: TeamdeckApp, gate: GateView, approve: bool, note: str | None) -> None:
    """Allow or deny a member's permission request (a ``permission_response`` to it)."""
    team, member, request_id = gate.team or "", gate.member or "", gate.request_id or ""
    verb = "allow" if approve else "deny"

    def call() -> str:
        from teamdeck.protocol.permissions import answer_permission

        answer_permission(app.ws, team, member, request_id, approve=approve, note=note)
        return f"permission {'allowed' if approve else 'denied'}: {member} ({request_id})"

    app.perform(f"{verb} the permission request of {member}", call)


def resend_stuck_shutdown(app: TeamdeckApp, gate: GateView, reason: str | None) -> None:
    """Ask the member of a stuck shutdown again (the old request is recorded as superseded)."""
    team, member = gate.team or "", gate.member or ""

    def call() -> str:
        from teamdeck.protocol.shutdown_resend import resend_shutdown

        resent = resend_shutdown(app.ws, team, member, reason=reason)
        return (
            f"shutdown request resent to {member} ({resent.sent.request_id}); superseded {', '.join(resent.superseded)}"
        )

    app.perform(f"resend the shutdown request to {member}", call)


def force_offline(app: TeamdeckApp, gate: GateView, reason: str | None) -> None:
    """Mark the member of a stuck shutdown inactive (forced), the reason logged."""
    team, member = gate.team or "", gate.member or ""
    why = reason or f"no shutdown_response to {gate.request_id} since {gate.created_at}; forced offline"

    def call() -> str:
        from teamdeck.protocol.messaging import deactivate_member

        name = deactivate_member(app.ws, team, member, force=True, reason=why)
        return f"{name} forced offline"

    app.perform(f"force {member} offline", call)


def message(app: TeamdeckApp, member: MemberView, summary: str, text: str) -> None:
    """Send ``member`` a message from the team lead."""

    def call() -> str:
        from teamdeck.protocol.messaging import send_message

        sent = send_message(app.ws, member.team, member.name, text, summary=summary)
        return f"message sent to {member.name}" + _warnings(sent.warnings)

    app.perform(f"send a message to {member.name}", call)


def broadcast_to(app: TeamdeckApp, team: str, summary: str, text: str) -> None:
    """Send every member of ``team`` (but the lead) a message."""

    def call() -> str:
        from teamdeck.protocol.messaging import broadcast

        sent = broadcast(app.ws, team, text, summary=summary)
        return f"broadcast sent to {len(sent.recipients)} member(s) of {team}" + _warnings(sent.warnings)

    app.perform(f"broadcast to team {team}", call)


def shutdown(app: TeamdeckApp, member: MemberView, reason: str | None) -> None:
    """Ask ``member`` to shut down (the handshake then shows in the roster)."""

    def call() -> str:
        from teamdeck.protocol.messaging import request_shutdown

        sent = request_shutdown(app.ws, member.team, member.name, reason=reason)
        return f"shutdown request sent to {member.name} ({sent.request_id})"

    app.perform(f"ask {member.name} to shut down", call)


def deactivate(app: TeamdeckApp, member: MemberView) -> None:
    """Mark ``member`` inactive (guarded: only after it approved a shutdown)."""

    def call() -> str:
        from teamdeck.protocol.messaging import deactivate_member

        name = deactivate_member(app.ws, member.team, member.name)
        return f"{name} marked inactive"

    app.perform(f"deactivate {member.name}", call)


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
