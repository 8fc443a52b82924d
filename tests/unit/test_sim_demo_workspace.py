"""demo-workspace/: generated reproducibly, loadable by every reader, and as rich as promised.

The committed copy is compared with a fresh run of scripts/make_demo_workspace.py, so a
change to a protocol function or a template that would change the demo fails here
(with the command that regenerates it) instead of drifting silently.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from teamdeck.model.team import decode_text
from teamdeck.protocol.checks.validate import validate_workspace
from teamdeck.protocol.task.taskfile import load_task, read_events, task_ids
from teamdeck.protocol.task.worker_outputs import read_worker_outputs
from teamdeck.protocol.team.inboxes import read_inboxes
from teamdeck.protocol.team.teamlog import read_log
from teamdeck.protocol.team.teams import list_teams, read_task_list, read_team
from teamdeck.resources import data_dir
from teamdeck.store.workspace import Workspace

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo-workspace"
GENERATOR = REPO / "scripts" / "make_demo_workspace.py"
INVALID_OUTPUT = "tasks/payment-retry/agents/schema-check/artifacts/final.json"


def tree(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.fixture(scope="module")
def ws() -> Workspace:
    """The committed demo workspace, read only (tests never write into it)."""
    return Workspace.at(DEMO, read_only=True, read_only_reason="the committed demo")


def test_the_committed_demo_workspace_is_what_the_generator_makes(tmp_path: Path):
    out = tmp_path / "demo"
    proc = subprocess.run(
        [sys.executable, str(GENERATOR), "--out", str(out)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    fresh, committed = tree(out), tree(DEMO)
    changed = sorted(name for name in fresh.keys() | committed.keys() if fresh.get(name) != committed.get(name))
    assert not changed, (
        f"demo-workspace/ differs from what the generator makes ({len(changed)} files, e.g. "
        f"{changed[:5]}); regenerate it with: python scripts/make_demo_workspace.py"
    )


def test_it_stays_small():
    assert 30 <= len(tree(DEMO)) <= 100


def test_only_the_one_deliberately_invalid_output_is_a_problem(ws: Workspace):
    problems = validate_workspace(ws)
    assert problems, "the demo must show an invalid final.json"
    assert {str(problem.path) for problem in problems} == {INVALID_OUTPUT}, [str(problem) for problem in problems]


def test_every_team_file_reads_cleanly(ws: Workspace):
    assert list_teams(ws) == ["checkout-revamp", "perf-audit", "quant"]
    for team in list_teams(ws):
        config = read_team(ws, team)
        inboxes = read_inboxes(ws, team)
        assert inboxes.unreadable == {} and inboxes.ignored == []
        assert all(not inbox.problems for inbox in inboxes.inboxes.values())
        assert set(inboxes.inboxes) == {member.name for member in config.members}
        assert all(entry.kind.KIND != "unknown" for _recipient, entry in inboxes.entries())
        task_list = read_task_list(ws, team)
        assert task_list.problems == [] and task_list.tasks
        records, problems = read_log(ws, team)
        assert problems == [] and records


def test_every_task_and_event_reads_cleanly(ws: Workspace):
    for task_id in task_ids(ws):
        task = load_task(ws, task_id)
        events = read_events(ws, task_id)
        assert events[0].type == "task.created"
        assert task.lastEventId == events[-1].id
        assert [event.id for event in events] == sorted(event.id for event in events)


def test_the_tasks_cover_the_states_workers_and_gates_the_demo_promises(ws: Workspace):
    tasks = {task_id: load_task(ws, task_id) for task_id in task_ids(ws)}
    assert {task.state for task in tasks.values()} >= {"working", "input-required", "done", "failed"}
    blocked = [gate for task in tasks.values() for gate in task.open_gates]
    assert len(blocked) >= 2 and all(len(gate.questions) >= 2 for gate in blocked)
    decided = [gate for task in tasks.values() for gate in task.gates if gate.state == "approved"]
    assert decided and decided[0].note and decided[0].decidedBy == "human:alex"
    statuses = Counter(result.status for task_id in tasks for result in read_worker_outputs(ws, task_id))
    assert statuses["completed"] and statuses["blocked"] >= 2 and statuses["failed"] >= 2
    assert statuses["invalid"] == 1
    pending = [
        (task.id, worker.id)
        for task in tasks.values()
        for worker in task.workers
        if not ws.final_output(task.id, worker.id).exists()
    ]
    assert pending == [("search-index", "indexer"), ("search-index", "ranker")]  # the simulator's to write
    for task_id in tasks:
        reports = ws.reports_dir(task_id)
        assert (reports / "joined-summary.md").is_file() and (reports / "joined-summary.json").is_file()
    for task in tasks.values():
        if task.open_gates:
            notes = ws.human_notes(task.id).read_text()
            assert all(question in notes for gate in task.open_gates for question in gate.questions)
    history = Counter(event.type for task_id in tasks for event in read_events(ws, task_id))
    assert {"task.created", "gate.blocked", "gate.approved", "join.completed", "task.state_changed"} <= set(history)


def test_the_checkout_team_is_shaped_like_the_real_captures(ws: Workspace):
    config = read_team(ws, "checkout-revamp")
    lead = config.members[0]
    assert (lead.name, lead.agentType, lead.tmuxPaneId, lead.color) == ("team-lead", "team-lead", "", None)
    mates = config.members[1:]
    assert len(mates) >= 4 and len({mate.color for mate in mates}) == len(mates)
    assert {mate.backendType for mate in mates} == {"in-process", "tmux"}
    assert any(mate.tmuxPaneId and mate.tmuxPaneId.startswith("%") for mate in mates)
    assert any(mate.planModeRequired for mate in mates)
    assert [mate.name for mate in mates if not mate.isActive] == ["docs-writer"]
    assert all(mate.agentId == f"{mate.name}@checkout-revamp" and mate.prompt for mate in mates)


def test_the_messages_hold_every_kind_and_both_open_and_finished_handshakes(ws: Workspace):
    inboxes = read_inboxes(ws, "checkout-revamp").inboxes
    lead = inboxes["team-lead"].messages
    kinds = Counter(entry.kind.KIND for inbox in inboxes.values() for entry in inbox.messages)
    assert {
        "plain",
        "idle_notification",
        "task_assignment",
        "shutdown_request",
        "shutdown_approved",
        "plan_approval_request",
    } <= set(kinds)
    assert kinds["idle_notification"] >= 8  # the bulk of a lead's inbox, as in real teams
    plan = [entry for entry in lead if entry.kind.KIND == "plan_approval_request"]
    assert len(plan) == 1 and not plan[0].message.read
    assert not any(entry.kind.KIND == "plan_approval_response" for entry in inboxes["db-migrator"].messages)
    finished = [entry.kind for entry in lead if entry.kind.KIND == "shutdown_approved"]
    assert [kind.requestId for kind in finished] == [
        entry.kind.requestId for entry in inboxes["docs-writer"].messages if entry.kind.KIND == "shutdown_request"
    ]
    open_request = [entry for entry in inboxes["test-writer"].messages if entry.kind.KIND == "shutdown_request"]
    assert len(open_request) == 1 and not open_request[0].message.read
    assert not any(entry.message.from_ == "test-writer" and entry.kind.KIND.startswith("shutdown_") for entry in lead)
    assert [entry for entry in lead if not entry.message.read]  # unread for the lead...
    assert [entry for entry in inboxes["ui-dev"].messages if not entry.message.read]  # ...and for a teammate
    crashed = read_inboxes(ws, "perf-audit").inboxes["team-lead"].messages
    assert any(entry.kind.KIND == "idle_notification" and entry.kind.idleReason == "failed" for entry in crashed)


def test_the_claude_code_task_list_has_owners_dependencies_and_hidden_tasks(ws: Workspace):
    tasks = read_task_list(ws, "checkout-revamp").tasks
    by_id = {task.id: task for task in tasks}
    assert {task.status for task in tasks} == {"pending", "in_progress", "completed", "deleted"}
    assert by_id["3"].blockedBy == ["1"] and by_id["1"].blocks == ["3"]
    assert len(read_task_list(ws, "checkout-revamp").visible) < len(tasks)
    assert (ws.claude_tasks_dir("checkout-revamp") / ".lock").is_file()


def test_every_message_text_that_looks_structured_decodes(ws: Workspace):
    for team in list_teams(ws):
        for path in sorted(ws.inboxes_dir(team).glob("*.json")):
            for message in json.loads(path.read_text()):
                if message["text"].startswith("{"):
                    assert decode_text(message["text"]).KIND != "plain", (path.name, message["text"][:60])


def test_the_demo_is_found_from_a_source_checkout_and_ships_inside_the_wheel(tmp_path: Path):
    assert data_dir("demo-workspace") == DEMO
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if proc.returncode != 0 and "No module named" in proc.stderr:
        pytest.skip(f"cannot build a wheel here: {proc.stderr.strip().splitlines()[-1]}")
    assert proc.returncode == 0, proc.stderr
    wheel = next(tmp_path.glob("teamdeck-*.whl"))
    prefix = "teamdeck/_data/demo-workspace/"
    shipped = {name[len(prefix) :] for name in zipfile.ZipFile(wheel).namelist() if name.startswith(prefix)}
    assert shipped == set(tree(DEMO))
