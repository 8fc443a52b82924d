"""What the roster's keys do to the files (message, broadcast, shutdown, deactivate,
wake and stop a run): one protocol call per action, as a :class:`RunAction` message the
widget posts; the app hands it to its action runner (live/actions.py), which
runs the calls one at a time and has exactly the paths each wrote read (recorded by the
store's seam, protocol/common/written.py). Nothing here writes a file itself, names the files
a call touches, or shows anything optimistic.

Each call imports its protocol module when it runs, on the worker: the first frame does
not wait for modules only an action needs, and the UI thread never loads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.live.actions import Action
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.workspace import MemberView

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace


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
        from teamdeck.view.readers.runs import runner_holder

        request(ws, kind, member.team, member.name)
        done = "wake of" if kind == "wake" else "stop of the run of"
        if runner_holder(ws) is None:
            return f"{done} {member.name} asked, but no runner runs this workspace: start `teamdeck run`"
        return f"{done} {member.name} asked of the runner"

    return RunAction(Action(f"{kind} {member.name}", call))


def _warnings(warnings: tuple[str, ...]) -> str:
    return f" ({'; '.join(warnings)})" if warnings else ""
