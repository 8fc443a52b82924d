"""What a person may do now: the "may I" rules of the writes, as predicates every front
shares (the TUI's keys, footer and palette; the CLI; the MCP server), like
:func:`teamdeck.protocol.lifecycle.can_transition` (whose table they use). The protocol functions that write
refuse with the same rules (a plan's: :func:`teamdeck.protocol.plans.machine.can_run_plan`) (``why_not_*`` gives the reason they name), so a front never
offers what the protocol would refuse, nor hides what it would do.

Each takes plain values (a state, a status, flags), so a front asks with what its read
model holds and nothing is read from disk here.
"""

from __future__ import annotations

from collections.abc import Iterable

from teamdeck.errors import Refused

VERIFIABLE = frozenset({"working", "verifying", "guard-review"})
"""States from which ``verify`` starts (working) or resumes an unfinished assignment."""
TEAM_TASK_CLOSED = frozenset({"completed", "deleted"})
"""Team-task statuses that are the end of a task (neither reassigned nor reopened)."""
NOT_APPROVED = "it has not approved a shutdown"
TASK_ACTIONS = ("transition", "cancel", "retry", "verify")


def next_states(state: str) -> list[str]:
    """The states a task in ``state`` may move to (empty: final or unknown)."""
    # imported here: the lifecycle brings the task file and its models, which the team
    # rules below (``teamdeck send`` asks them on every call) never need
    from teamdeck.protocol.lifecycle import legal_next, normalise_state

    try:
        return list(legal_next(normalise_state(state)))
    except Refused:  # an unreadable or unknown state has no next state
        return []


def can_move(state: str) -> bool:
    """Whether a task in ``state`` can move anywhere (it is not final)."""
    return bool(next_states(state))


def can_cancel(state: str) -> bool:
    """Whether a task in ``state`` may be canceled."""
    return "canceled" in next_states(state)


def can_verify(state: str) -> bool:
    """Whether ``verify`` starts (working) or resumes (verifying, guard-review) now."""
    return state in VERIFIABLE


def why_not_retry(state: str, open_gates: Iterable[tuple[str, str]]) -> str | None:
    """Why a task in ``state`` with these open gates (``(id, kind)``) cannot be retried
    (None: it can).

    Only a blocked (input-required) task is retried; a worker's question (any open gate
    but a ``verification-failed`` one) must be answered first.
    """
    if state != "input-required":
        nexts = ", ".join(next_states(state)) or "none: it is final"
        return f"only a blocked (input-required) task can be retried; it is {state}, from which it can go to: {nexts}"
    others = [gate_id for gate_id, kind in open_gates if kind != "verification-failed"]
    if others:
        return f"gates {', '.join(others)} wait for a person's answer; decide them with teamdeck gate approve|reject"
    return None


def can_retry(state: str, open_gates: Iterable[tuple[str, str]]) -> bool:
    """Whether :func:`why_not_retry` has nothing against it."""
    return why_not_retry(state, open_gates) is None


def task_actions_allowed(
    state: str, open_gates: Iterable[tuple[str, str]] = (), *, unreadable: bool = False
) -> frozenset[str]:
    """The lifecycle actions (:data:`TASK_ACTIONS`) a task with these open gates
    (``(id, kind)``) allows now."""
    if unreadable:
        return frozenset()
    gates = tuple(open_gates)
    checks = {
        "transition": can_move(state),
        "cancel": can_cancel(state),
        "retry": can_retry(state, gates),
        "verify": can_verify(state),
    }
    return frozenset(action for action, ok in checks.items() if ok)


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
