"""Deciding a plan-approval gate moves its plan at once, from any front (a follow-up of
the decision in protocol/effects/gate_decisions.py), and a follow-up that fails never undoes a decision."""

from __future__ import annotations

import json
from pathlib import Path

from support import plan_world as world

from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.planfile import load_plan, plan_events
from teamdeck.protocol.task.taskfile import load_task


def test_approving_the_plan_makes_it_ready_with_its_tasks_approved(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "imported")
    change = decide_gate(ws, "release", "plan-approval", "approve", "go")
    assert load_plan(ws, "release").state == "READY"
    assert {load_task(ws, task_id).state for task_id in world.IDS.values()} == {"approved"}
    assert change.notices == ("plan release: PLANNING -> READY: approved at the approval gate",)
    assert [event.payload["to"] for event in plan_events(ws, "release") if event.type == "plan.state_changed"] == [
        "READY"
    ]


def test_rejecting_the_plan_cancels_it_and_its_tasks(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "imported")
    decide_gate(ws, "release", "plan-approval", "reject", "too big")
    assert load_plan(ws, "release").state == "CANCELED"
    assert {load_task(ws, task_id).state for task_id in world.IDS.values()} == {"canceled"}


def test_a_broken_plan_leaves_the_decision_recorded_and_says_so(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "imported")
    ws.plan_file("release").write_text("state: [")
    ws.plan_events_file("release").write_text("")
    change = decide_gate(ws, "release", "plan-approval", "approve", "go")
    assert load_task(ws, "release").state == "approved"
    assert len(change.notices) == 1 and "what follows it did not run" in change.notices[0]
    lines = ws.events_file("release").read_text().splitlines()
    assert json.loads(lines[-2])["type"] == "gate.approved"


def test_text_mode_gate_approve_prints_the_plan_move(tmp_path: Path, run_cli) -> None:
    """Issue 9 item 6: what the decision moved is printed without --json too."""
    ws = world.build(tmp_path / "ws", "imported")
    approved = run_cli(ws.root, "gate", "approve", "release", "plan-approval", "--note", "go")
    assert approved.code == 0, approved.err
    lines = approved.out.splitlines()
    assert lines[0].startswith("approved gate plan-approval of task release")
    assert "plan release: PLANNING -> READY: approved at the approval gate" in lines[1:]
