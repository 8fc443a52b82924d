"""Seed 002 end to end through the real CLI: a plan of six tasks in three waves is
imported, approved in the gate queue, executed by simulated workers, fails verification
once, is fixed, and completes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace

PLAN = """# Release 1.0

The coordinator's notes: three waves, E needs the packaging check.

@@@task
# Schema
## Objective
Define the data schema.
## Scope
- schema/
## Definition of Done
- schema committed
## Verification
- schema lint
@@@

@@@task
# Fixtures
## Objective
Sample data.
## Definition of Done
- fixtures exist
## Verification
- load them
@@@

@@@task
# Build
## Objective
A build script.
## Definition of Done
- make works
## Verification
- make
@@@

@@@task
# Store
## Objective
Persist records.
## Definition of Done
- round trip
## Verification
- pytest tests/store
Depends: Schema, Fixtures
@@@

@@@task
# Package
## Objective
A wheel.
## Definition of Done
- wheel builds
## Verification
- pip install dist/*.whl
Depends: Build
@@@

@@@task
# Release notes
## Objective
Write them.
## Definition of Done
- notes published
## Verification
- read them
Depends: Store, #5
@@@
"""


def write_final(root: Path, task: str, agent: str, summary: str) -> None:
    """A simulated agent writes its final.json by hand, as agents do."""
    path = root / "tasks" / task / "agents" / agent / "artifacts" / "final.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"status": "completed", "summary": summary, "nextActions": ["next wave"]}))


def plan_moves(root: Path) -> list[str]:
    lines = (root / "plans" / "release" / "events.jsonl").read_text().splitlines()
    return [event["payload"]["to"] for event in map(json.loads, lines) if event["type"] == "plan.state_changed"]


def test_plan_six_tasks_three_waves_fails_once_is_fixed_and_completes(tmp_path: Path, run_cli):
    root = tmp_path / "ws"
    root.mkdir()
    ws = Workspace.at(root)
    create_team(ws, "crew")
    for member in ("alice", "bob"):
        add_member(ws, "crew", member)
    plan_file = tmp_path / "release.md"
    plan_file.write_text(PLAN)
    project = tmp_path / "project"
    project.mkdir()

    imported = run_cli(root, "plan", "import", str(plan_file), "--team", "crew", "--json")
    assert imported.code == 0, imported.err
    tasks = {task["title"]: task for task in imported.json["plan"]["tasks"]}
    assert {title: task["wave"] for title, task in tasks.items()} == {
        "Schema": 1,
        "Fixtures": 1,
        "Build": 1,
        "Store": 2,
        "Package": 2,
        "Release notes": 3,
    }
    ids = {title: task["id"] for title, task in tasks.items()}
    package = ids["Package"]
    check = f"{sys.executable} -c \"import pathlib, sys; sys.exit(0 if pathlib.Path('dist-ok').exists() else 1)\""
    assert (
        run_cli(root, "guardian", "set", package, "--code", "command", "--command", check, "--cwd", str(project)).code
        == 0
    )

    # the coordinator waits for approval: the gate is in the queue
    queue = run_cli(root, "gate", "list", "--json")
    assert "plan-approval" in queue.out and "release" in queue.out
    approved = run_cli(root, "gate", "approve", "release", "plan-approval", "--note", "go", "--json")
    assert approved.code == 0, approved.err
    # the decision moves the plan at once: READY, its tasks approved
    assert "plan release: PLANNING -> READY: approved at the approval gate" in approved.json["notices"]
    assert run_cli(root, "plan", "show", "release", "--json").json["plan"]["state"] == "READY"

    # wave 1: delegated in turn, reported by the workers
    run = run_cli(root, "plan", "run", "release", "--to", "alice", "--to", "bob", "--json").json
    assert run["plan"]["state"] == "EXECUTING" and run["plan"]["currentWave"] == 1
    assert f"{ids['Schema']}: delegated to alice" in run["actions"]
    inbox = json.loads((root / "teams/crew/inboxes/alice.json").read_text())
    assert any('"task_assignment"' in entry["text"] and ids["Schema"] in entry["text"] for entry in inbox)
    assert (
        run_cli(root, "report", ids["Schema"], "alice", "--status", "completed", "--summary", "schema done").code == 0
    )
    write_final(root, ids["Fixtures"], "bob", "fixtures done")
    write_final(root, ids["Build"], "alice", "build done")
    started = run_cli(root, "plan", "run", "release", "--to", "alice", "--to", "bob", "--json").json
    assert started["plan"]["currentWave"] == 2 and started["plan"]["state"] == "EXECUTING"

    # wave 2: Package fails verification once
    write_final(root, ids["Store"], "alice", "store done")
    write_final(root, ids["Package"], "bob", "wheel built")
    failed = run_cli(root, "plan", "run", "release", "--json").json
    assert failed["plan"]["state"] == "NEEDS_FIX"
    assert any(action.startswith(f"{package}: command FAIL") for action in failed["actions"])
    shown = run_cli(root, "plan", "show", "release", "--json").json
    package_row = next(row for wave in shown["waves"] for row in wave if row["id"] == package)
    assert (
        package_row["state"] == "input-required"
        and package_row["verdict"] == "FAIL"
        and len(package_row["openGates"]) == 1
    )

    # a person retries at the gate; the worker fixes and reports again
    assert run_cli(root, "gate", "approve", package, package_row["openGates"][0], "--note", "fix the wheel").code == 0
    waiting = run_cli(root, "plan", "run", "release", "--json").json
    assert waiting["plan"]["state"] == "EXECUTING" and any(
        "has not reported since the last verdict" in reason for reason in waiting["waiting"]
    )
    (project / "dist-ok").write_text("")
    assert run_cli(root, "report", package, "bob", "--status", "completed", "--summary", "wheel fixed").code == 0
    third = run_cli(root, "plan", "run", "release", "--to", "alice", "--json").json
    assert third["plan"]["currentWave"] == 3

    # wave 3 and completion
    write_final(root, ids["Release notes"], "alice", "notes out")
    done = run_cli(root, "plan", "run", "release", "--json")
    assert done.code == 0, done.err
    assert done.json["plan"]["state"] == "COMPLETED"
    assert plan_moves(root) == [
        "READY",
        "EXECUTING",
        "WAVE_COMPLETE",
        "VERIFYING",
        "EXECUTING",
        "WAVE_COMPLETE",
        "VERIFYING",
        "NEEDS_FIX",
        "EXECUTING",
        "WAVE_COMPLETE",
        "VERIFYING",
        "EXECUTING",
        "WAVE_COMPLETE",
        "VERIFYING",
        "COMPLETED",
    ]
    final = run_cli(root, "plan", "show", "release", "--json").json
    assert {row["state"] for wave in final["waves"] for row in wave} == {"done"} and final["coordinatorState"] == "done"
    verdicts = run_cli(root, "verdicts", package, "--json").json["verdicts"]
    assert [verdict["status"] for verdict in verdicts] == ["FAIL", "PASS"]
