"""Seed 003 end to end through the real CLI: the happy path, the failure path and the
needs-changes path, each asserting the seed's event list in order; a hung guardian
stopped at its timeout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from teamdeck.protocol.coordination.delegation import delegate
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace

SEED_EVENTS = [
    "task.ready_for_verification",  # TASK_READY_FOR_VERIFICATION
    "guardian.assigned",  # GUARDIAN_ASSIGNED
    "task.state_changed",  # TASK_STATE_CHANGED  RUNNING -> VERIFYING
    "guardian.verification_started",  # GUARDIAN_VERIFICATION_STARTED
    "task.state_changed",  # TASK_STATE_CHANGED  VERIFYING -> GUARD_REVIEW
    "guardian.verdict_recorded",  # GUARDIAN_VERDICT_RECORDED
    "guardian.verdict_applied",  # GUARDIAN_VERDICT_APPLIED
]


def events(root: Path, task: str) -> list[dict]:
    return [
        json.loads(line) for line in (root / "tasks" / task / "events.jsonl").read_text().splitlines() if line.strip()
    ]


def since_verify(root: Path, task: str) -> list[dict]:
    """The events from the last ``task.ready_for_verification`` on."""
    found = events(root, task)
    start = max(index for index, event in enumerate(found) if event["type"] == "task.ready_for_verification")
    return found[start:]


def moves(found: list[dict]) -> list[tuple[str, str]]:
    return [
        (event["payload"]["from"], event["payload"]["to"]) for event in found if event["type"] == "task.state_changed"
    ]


@pytest.fixture
def team(tmp_path: Path) -> Path:
    """A team alpha (alice, bob) with task t1 delegated to both; set up in-process
    (the paths under test then run through the CLI)."""
    root = tmp_path / "ws"
    root.mkdir()
    ws = Workspace.at(root)
    create_team(ws, "alpha")
    for member in ("alice", "bob"):
        add_member(ws, "alpha", member)
    create_task(ws, "t1", "Parser", team="alpha")
    for member in ("alice", "bob"):
        delegate(ws, "t1", member)
    return root


def test_seed003_happy_path_pass_verified_done(team, run_cli):
    for agent, changed in (("alice", "src/lexer.py"), ("bob", "src/parser.py")):
        assert (
            run_cli(
                team, "report", "t1", agent, "--status", "completed", "--summary", "done", "--changed", changed
            ).code
            == 0
        )
    result = run_cli(team, "verify", "t1", "--guardian", "schema", "--reason", "workers finished", "--json")
    assert result.code == 0, result.err
    data = result.json
    assert data["verdict"]["status"] == "PASS" and data["task"]["state"] == "verified"
    found = since_verify(team, "t1")
    assert [event["type"] for event in found] == [*SEED_EVENTS, "task.state_changed"]
    assert moves(found) == [("working", "verifying"), ("verifying", "guard-review"), ("guard-review", "verified")]
    assert found[5]["actor"] == "guardian:schema" and found[5]["payload"]["verdict"]["id"] == data["verdict"]["id"]
    # the supervisor completes the flow
    assert run_cli(team, "task", "transition", "t1", "done").code == 0
    assert moves(events(team, "t1"))[-1] == ("verified", "done")
    verdicts = run_cli(team, "verdicts", "t1", "--json").json["verdicts"]
    assignments = run_cli(team, "assignments", "t1", "--json").json["assignments"]
    assert [v["status"] for v in verdicts] == ["PASS"] and verdicts[0]["assignment"] == assignments[0]["id"]
    assert assignments[0]["reason"]["why"] == "workers finished"
    stored = json.loads((team / "tasks/t1/guardian/verdicts" / f"{verdicts[0]['id']}.json").read_text())
    assert stored == verdicts[0]


def test_seed003_failure_path_fail_blocks_with_a_gate_then_retry_and_give_up(team, run_cli, tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    check = f"{sys.executable} -c \"import pathlib, sys; print('checking'); sys.exit(0 if pathlib.Path('ok').exists() else 1)\""
    assert (
        run_cli(team, "guardian", "set", "t1", "--code", "command", "--command", check, "--cwd", str(project)).code == 0
    )
    assert run_cli(team, "report", "t1", "alice", "--status", "completed", "--summary", "done").code == 0
    result = run_cli(team, "verify", "t1", "--json")
    assert result.code == 0, result.err
    verdict, gate_id = result.json["verdict"], result.json["gateId"]
    assert (
        verdict["status"] == "FAIL"
        and verdict["evidence"]["exitCode"] == 1
        and "checking" in verdict["evidence"]["outputTail"]
    )
    found = since_verify(team, "t1")
    assert [event["type"] for event in found] == [*SEED_EVENTS, "gate.blocked", "task.state_changed"]
    assert moves(found)[-1] == ("guard-review", "input-required")  # seed: GUARD_REVIEW -> BLOCKED
    gates = run_cli(team, "gate", "list", "t1", "--json")
    assert gate_id in gates.out and "verification-failed" in gates.out
    # a person retries: back to RUNNING, the guardian may run again
    assert run_cli(team, "gate", "approve", "t1", gate_id, "--note", "fixed the env").code == 0
    assert moves(events(team, "t1"))[-1] == ("input-required", "working")
    (project / "ok").write_text("")
    again = run_cli(team, "verify", "t1", "--json").json
    assert again["verdict"]["status"] == "PASS" and again["assignment"]["id"] != result.json["assignment"]["id"]
    # and the give-up branch on a second task
    assert run_cli(team, "task", "create", "t2", "--title", "Other", "--team", "alpha").code == 0
    assert run_cli(team, "guardian", "set", "t2", "--code", "command", "--command", "false").code == 0
    failed = run_cli(team, "verify", "t2", "--json").json
    assert run_cli(team, "gate", "reject", "t2", failed["gateId"], "--note", "not worth it").code == 0
    assert moves(events(team, "t2"))[-1] == ("input-required", "failed")
    refused = run_cli(team, "task", "retry", "t2")
    assert refused.code != 0 and "it is failed, from which it can go to: none: it is final" in refused.err


def test_seed003_needs_changes_path_back_to_running_with_recommendations(team, run_cli):
    for agent in ("alice", "bob"):
        assert (
            run_cli(
                team, "report", "t1", agent, "--status", "completed", "--summary", "done", "--changed", "src/shared.py"
            ).code
            == 0
        )
    result = run_cli(team, "verify", "t1", "--guardian", "diff", "--json")
    assert result.code == 0, result.err
    assert result.json["verdict"]["status"] == "NEEDS_CHANGES" and result.json["notified"] == ["alice", "bob"]
    found = since_verify(team, "t1")
    assert [event["type"] for event in found] == [*SEED_EVENTS, "task.state_changed"]
    assert moves(found)[-1] == ("guard-review", "working")  # seed: GUARD_REVIEW -> RUNNING
    for member in ("alice", "bob"):
        inbox = json.loads((team / "teams/alpha/inboxes" / f"{member}.json").read_text())
        assert (
            "reconcile your changes to src/shared.py" in inbox[-1]["text"]
            and inbox[-1]["summary"] == "Changes needed on t1"
        )
    # the agents fix it, the cycle repeats
    assert (
        run_cli(
            team, "report", "t1", "bob", "--status", "completed", "--summary", "moved", "--changed", "src/other.py"
        ).code
        == 0
    )
    assert run_cli(team, "verify", "t1", "--guardian", "diff", "--complete", "--json").json["task"]["state"] == "done"


def test_a_guardian_that_hangs_is_stopped_at_its_timeout_and_fails(team, run_cli):
    assert (
        run_cli(
            team, "guardian", "set", "t1", "--code", "command", "--command", "sleep 60", "--command-timeout", "300"
        ).code
        == 0
    )
    result = run_cli(team, "verify", "t1", "--timeout", "1", "--json")
    assert result.code == 0, result.err
    verdict = result.json["verdict"]
    assert verdict["status"] == "FAIL" and verdict["flags"][0]["code"] == "timeout"
    assert verdict["evidence"]["timeoutS"] == 1.0 and verdict["durationS"] < 10
    assert result.json["task"]["state"] == "input-required"
    assert _processes_in(team) == [], "the guardian's command outlived the guardian"


def _processes_in(directory: Path) -> list[str]:
    """Command lines of the processes whose working directory is ``directory``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cwd").resolve() == directory.resolve():
                found.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue
    return found
