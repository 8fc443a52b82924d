"""The may-I predicates (protocol/task/allowed.py, protocol/team/allowed.py) say exactly what the protocol functions
do: a front that offers an action only when ``can_*`` holds never offers one the
protocol refuses, and never hides one it would do."""

from __future__ import annotations

import pytest

from teamdeck.errors import Refused
from teamdeck.protocol.effects.task_retry import retry
from teamdeck.protocol.task.allowed import (
    TASK_ACTIONS,
    can_retry,
    task_actions_allowed,
    why_not_retry,
    why_not_task_action,
)
from teamdeck.protocol.task.lifecycle import STATES
from teamdeck.protocol.team.allowed import can_deactivate, can_shutdown, can_update_team_task


@pytest.mark.parametrize("state", STATES)
def test_retry_is_allowed_only_for_a_blocked_task_without_a_waiting_question(state: str) -> None:
    assert can_retry(state, []) is (state == "input-required")
    assert not can_retry(state, [("g1", "worker-blocked")])
    assert can_retry(state, [("vf", "verification-failed")]) is (state == "input-required")


def test_the_retry_refusal_and_the_predicate_agree_on_disk(ws) -> None:
    from test_lifecycle import _block_with_gate

    from teamdeck.protocol.task.create import create_task

    create_task(ws, "t1", "Blocked by a question")
    _block_with_gate(ws, "t1", "g1", "worker-blocked")
    why = why_not_retry("input-required", [("g1", "worker-blocked")])
    with pytest.raises(Refused) as refused:
        retry(ws, "t1")
    assert why is not None and why in str(refused.value)
    assert "retry" not in task_actions_allowed("input-required", [("g1", "worker-blocked")])
    assert "retry" in task_actions_allowed("input-required", [("vf", "verification-failed")])


def test_an_unreadable_task_allows_nothing_and_a_final_one_only_what_its_table_says() -> None:
    assert task_actions_allowed("working", unreadable=True) == frozenset()
    assert task_actions_allowed("done") == frozenset()
    assert {"transition", "cancel", "verify"} <= task_actions_allowed("working")


@pytest.mark.parametrize("state", STATES)
def test_every_action_not_allowed_has_a_reason_naming_the_state(state: str) -> None:
    allowed = task_actions_allowed(state)
    for action in TASK_ACTIONS:
        why = why_not_task_action(action, state)
        assert (why is None) is (action in allowed), (action, why)
        assert why is None or state in why, why


def test_members_and_team_tasks() -> None:
    assert can_shutdown(True, False) and not can_shutdown(False, False) and not can_shutdown(True, True)
    assert can_deactivate(lead=False, active=True, approved_shutdown=True)
    assert not can_deactivate(lead=False, active=True, approved_shutdown=False)
    assert can_deactivate(lead=False, active=True, approved_shutdown=False, force=True)
    assert not can_deactivate(lead=True, active=True, approved_shutdown=True, force=True)
    assert can_update_team_task("in_progress", "reassign") and can_update_team_task("in_progress", "pending")
    assert not can_update_team_task("pending", "pending") and not can_update_team_task("completed", "reassign")
