"""What the roster's keys do to the files (message, broadcast, shutdown, deactivate,
wake and stop a run): live/calls.py's action for the member the key was pressed on, as
a :class:`RunAction` message the widget posts; the app hands it to its action runner
(live/actions.py), which runs the calls one at a time and has exactly the paths each
wrote read. Nothing here writes a file itself or shows anything optimistic.
"""

from __future__ import annotations

from teamdeck.live import calls
from teamdeck.tui.messages import RunAction
from teamdeck.view.snapshot.workspace import MemberView


def message(member: MemberView, summary: str, text: str) -> RunAction:
    """Send ``member`` a message from the team lead."""
    return RunAction(calls.message(member.team, member.name, summary, text))


def broadcast_to(team: str, summary: str, text: str) -> RunAction:
    """Send every member of ``team`` (but the lead) a message."""
    return RunAction(calls.broadcast(team, summary, text))


def shutdown(member: MemberView, reason: str | None) -> RunAction:
    """Ask ``member`` to shut down (the handshake then shows in the roster)."""
    return RunAction(calls.shutdown(member.team, member.name, reason))


def deactivate(member: MemberView) -> RunAction:
    """Mark ``member`` inactive (guarded: only after it approved a shutdown)."""
    return RunAction(calls.deactivate(member.team, member.name))


def run_request(member: MemberView, kind: str) -> RunAction:
    """Ask the runner (``teamdeck run``) to ``wake`` or ``stop`` ``member``."""
    return RunAction(calls.run_request(member.team, member.name, kind))
