"""What a member's run is told besides its messages: its roster ``prompt`` (what
``create_agent`` gave it) and its role's prompt (``templates/roles/<role>.md``, seed
002: a coordinator plans and delegates, a crafter does its task, a gate checks the
acceptance criteria). The runtime decides where they go (runtime/spec.py ``RunRequest``):
Claude Code puts both at the head of a session's first prompt; a ``command`` agent finds
the role prompt in a file its environment names.
"""

from __future__ import annotations

from teamdeck.model.team import TeamConfig
from teamdeck.protocol.coordination.roles import member_role_prompt


def roster_prompt(roster: TeamConfig, member: str) -> str:
    """The member's roster ``prompt`` ("" when it has none, or is not on the roster)."""
    found = roster.member(member)
    return (found.prompt or "") if found is not None else ""


def role_prompt(roster: TeamConfig, member: str) -> str:
    """The member's role prompt ("" for no role, or ``none``).

    Raises:
        InvalidFile: the role's template is missing from this installation (the run is
            not started, and the runner says why).
    """
    return member_role_prompt(roster, member) or ""
