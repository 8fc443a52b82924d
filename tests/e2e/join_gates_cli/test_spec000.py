"""Every Scenario of spec 000 (subagent-join-gates), driving the CLI as a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .kit import events, make_task, no_traceback, task_yaml, world, write_output

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def blocked_world(tmp_path, run_cli):
    """Task ``t1`` with two finished workers: w1 completed, w2 blocked with questions."""
    root = world(tmp_path)
    make_task(run_cli, root, "t1")
    write_output(root, "t1", "w1", {"status": "completed", "summary": "API done", "nextActions": ["deploy to staging"]})
    write_output(
        root,
        "t1",
        "w2",
        {
            "status": "blocked",
            "summary": "Need a decision",
            "questions": ["Use Postgres or SQLite?", "Is staging data disposable?"],
        },
    )
    result = run_cli(root, "join", "t1")
    assert result.code == 0 and no_traceback(result.out, result.err), result.err
    return root


def test_joined_summary_is_written(blocked_world):
    reports = blocked_world / "tasks" / "t1" / "shared" / "reports"
    markdown = (reports / "joined-summary.md").read_text()
    data = json.loads((reports / "joined-summary.json").read_text())
    assert "API done" in markdown and "Need a decision" in markdown and "deploy to staging" in markdown
    assert {worker["agentId"]: worker["status"] for worker in data["workers"]} == {"w1": "completed", "w2": "blocked"}
    assert data["totals"]["total"] == 2


def test_template_exists_in_repo():
    template = REPO / "templates" / "JoinedSummary.md"
    assert template.is_file()
    text = template.read_text()
    for placeholder in ("$agent_id", "$status", "$summary", "$questions", "$next_actions", "$completed", "$blocked"):
        assert placeholder in text  # the fields a human reads about are explained and used


def test_blocked_questions_are_visible_in_joined_report(blocked_world):
    markdown = (blocked_world / "tasks" / "t1" / "shared" / "reports" / "joined-summary.md").read_text()
    assert "Use Postgres or SQLite?" in markdown and "Is staging data disposable?" in markdown
    data = json.loads((blocked_world / "tasks" / "t1" / "shared" / "reports" / "joined-summary.json").read_text())
    (w2,) = [worker for worker in data["workers"] if worker["agentId"] == "w2"]
    assert w2["questions"] == ["Use Postgres or SQLite?", "Is staging data disposable?"]


def test_task_becomes_input_required_when_blocked(blocked_world, run_cli):
    task = task_yaml(blocked_world, "t1")
    assert task["state"] == "input-required"
    assert [gate["state"] for gate in task["gates"]] == ["blocked"]
    listing = run_cli(blocked_world, "gate", "list", "t1", "--json").json
    assert [(gate["id"], gate["state"], gate["agentInstance"]) for gate in listing["gates"]] == [
        ("g-w2-1", "blocked", "w2")
    ]


def test_gate_blocked_event_includes_gateid(blocked_world):
    (event,) = [event for event in events(blocked_world, "t1") if event["type"] == "gate.blocked"]
    assert event["payload"]["gateId"] == "g-w2-1"
    assert event["payload"]["agentInstance"] == "w2" and event["payload"]["reason"]
    assert event["id"] and event["ts"] and event["actor"]


def test_gate_points_to_human_notes(blocked_world):
    (gate,) = task_yaml(blocked_world, "t1")["gates"]
    assert gate["instructionsRef"] == "./shared/human-notes.md"
    notes = (blocked_world / "tasks" / "t1" / "shared" / "human-notes.md").read_text()
    assert "g-w2-1" in notes and "Use Postgres or SQLite?" in notes


def test_deciding_the_gate_through_the_cli_returns_the_task_to_working(blocked_world, run_cli):
    rejected = run_cli(blocked_world, "gate", "reject", "t1", "g-w2-1")
    assert rejected.code == 2 and "--note" in rejected.err  # a note is required to reject
    approved = run_cli(blocked_world, "gate", "approve", "t1", "g-w2-1", "--note", "Postgres; yes")
    assert approved.code == 0, approved.err
    assert approved.out.strip() == "approved gate g-w2-1 of task t1; the task is working"
    task = task_yaml(blocked_world, "t1")
    assert task["state"] == "working" and task["gates"][0]["note"] == "Postgres; yes"
    assert [event["type"] for event in events(blocked_world, "t1")][-2:] == ["gate.approved", "task.state_changed"]
    again = run_cli(blocked_world, "gate", "approve", "t1", "g-w2-1")
    assert again.code == 1 and "already approved by" in again.err and no_traceback(again.err)
    assert "Decision: **approved**" in (blocked_world / "tasks" / "t1" / "shared" / "human-notes.md").read_text()
