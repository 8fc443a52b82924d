"""What a person may do to a task now: the "may I" rules of the task writes, as predicates
every front shares (the TUI's keys, footer and palette; the CLI; the MCP server), like
:func:`teamdeck.protocol.task.lifecycle.can_transition` (whose table they use). The protocol functions that write
refuse with the same rules (a plan's: :func:`teamdeck.protocol.plans.machine.can_run_plan`; a team member's and a
team task's: protocol/team/allowed.py) (``why_not_*`` gives the reason they name), so a front never
offers what the protocol would refuse, nor hides what it would do.

Each takes plain values (a state, a status, flags), so a front asks with what its read
model holds and nothing is read from disk here.
"""

from __future__ import annotations

from collections.abc import Iterable

from teamdeck.errors import Refused

VERIFIABLE = frozenset({"working", "verifying", "guard-review"})
"""States from which ``verify`` starts (working) or resumes an unfinished assignment."""
TASK_ACTIONS = ("transition", "cancel", "retry", "verify")


def next_states(state: str) -> list[str]:
    """The states a task in ``state`` may move to (empty: final or unknown)."""
    # imported here: the lifecycle brings the task file and its models, which a front
    # asking only whether a task is verifiable or retryable need not load
    from teamdeck.protocol.task.lifecycle import legal_next, normalise_state

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


def why_not_verify(state: str) -> str | None:
    """Why ``verify`` neither starts nor resumes for a task in ``state`` (None: it does),
    with the way to a verifiable state when there is one."""
    if can_verify(state):
        return None
    nexts = next_states(state)
    way = (
        "move it to working first"
        if "working" in nexts
        else "a final state"
        if not nexts
        else "it must reach working first"
    )
    # The state and the way first: a one-line notice may cut what follows.
    return f"the task is {state}: {way} (verify starts on a working task and resumes a verifying or guard-review one)"


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


def why_not_task_action(
    action: str, state: str, open_gates: Iterable[tuple[str, str]] = (), *, unreadable: bool = False
) -> str | None:
    """Why lifecycle ``action`` (:data:`TASK_ACTIONS`) is not allowed for a task in
    ``state`` with these open gates (``(id, kind)``), in words for the person who asked
    (None: it is allowed)."""
    if unreadable:
        return "the task file cannot be read"
    if action == "transition":
        return None if can_move(state) else f"the task is {state}, a final state: it moves nowhere"
    if action == "cancel":
        return None if can_cancel(state) else f"the task is {state}, which cannot be canceled"
    if action == "retry":
        return why_not_retry(state, open_gates)
    if action == "verify":
        return why_not_verify(state)
    raise ValueError(f"not a task action: {action}")


def task_actions_allowed(
    state: str, open_gates: Iterable[tuple[str, str]] = (), *, unreadable: bool = False
) -> frozenset[str]:
    """The lifecycle actions (:data:`TASK_ACTIONS`) a task with these open gates
    (``(id, kind)``) allows now."""
    gates = tuple(open_gates)
    return frozenset(
        action for action in TASK_ACTIONS if why_not_task_action(action, state, gates, unreadable=unreadable) is None
    )
