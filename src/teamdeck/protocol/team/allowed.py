"""What a person may do to a team now: the "may I" rules of the team writes (asking a
member to shut down, marking it inactive, changing a team task), as predicates every front
shares (the TUI's keys, footer and palette; the CLI; the MCP server), like the task rules
in protocol/task/allowed.py. The protocol functions that write refuse with the same rules
(protocol/team/messaging/handshake_writes.py names the reason ``why_not_*`` gives), so a
front never offers what the protocol would refuse, nor hides what it would do.

Each takes plain values (a status, flags), so a front asks with what its read model holds
and nothing is read from disk here; ``teamdeck send`` asks them on every call, so they
import nothing of the task files.
"""

from __future__ import annotations

TEAM_TASK_CLOSED = frozenset({"completed", "deleted"})
"""Team-task statuses that are the end of a task (neither reassigned nor reopened)."""
NOT_APPROVED = "it has not approved a shutdown"


def why_not_shutdown(*, lead: bool, active: bool) -> str | None:
    """Why a member cannot be asked to shut down (None: it can)."""
    if lead:
        return "it is the team lead (the lead ends the team with TeamDelete)"
    if not active:
        return "it is already inactive"
    return None


def can_shutdown(active: bool, lead: bool) -> bool:
    """Whether a member may be asked to shut down."""
    return why_not_shutdown(lead=lead, active=active) is None


def why_not_deactivate(*, lead: bool, active: bool, approved_shutdown: bool, force: bool = False) -> str | None:
    """Why a member cannot be marked inactive (None: it can): never the lead nor an
    inactive member; without ``force`` only one that approved a shutdown."""
    if lead:
        return "it is the team lead"
    if not active:
        return "it is already inactive"
    if not approved_shutdown and not force:
        return NOT_APPROVED
    return None


def can_deactivate(*, lead: bool, active: bool, approved_shutdown: bool, force: bool = False) -> bool:
    """Whether :func:`why_not_deactivate` has nothing against it."""
    return why_not_deactivate(lead=lead, active=active, approved_shutdown=approved_shutdown, force=force) is None


def can_update_team_task(status: str, change: str) -> bool:
    """Whether a team task in ``status`` may be reassigned (``change`` = ``reassign``) or
    set back to pending (``pending``): not once it is closed, and pending only once."""
    if status in TEAM_TASK_CLOSED:
        return False
    if change == "pending":
        return status != "pending"
    return change == "reassign"
