"""``teamdeck demo --no-tui``: the runner and the demo's agents without the TUI, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from teamdeck.clock import utc_now
from teamdeck.model.team import decode_text
from teamdeck.sim.clock import DEMO_NOW


def lead_inbox(root: Path, team: str) -> list[dict]:
    return json.loads((root / "teams" / team / "inboxes" / "team-lead.json").read_text())


def kinds_from(root: Path, team: str, sender: str) -> list[str]:
    return [decode_text(m["text"]).KIND for m in lead_inbox(root, team) if m["from"] == sender]


def test_demo_copies_the_demo_into_an_empty_directory_and_the_runner_runs_its_agents(tmp_path: Path, run_cli):
    """What the demo shows is what the runner does: every answer below was written by an
    agent process the runner started (recorded under runs/), on the demo clock."""
    root = tmp_path / "fresh"
    result = run_cli(root, "demo", "--no-tui", "--duration", "12", "--speed", "20", "--json")
    assert result.code == 0, result.err
    data = result.json
    assert data["workspace"] == str(root) and data["fresh"] is True and data["errors"] == []
    assert f"teamdeck demo: {root} (a fresh copy of the demo workspace)" in result.err
    assert "runner of " in result.err and "▶ checkout-revamp/test-writer" in result.err
    members = data["runs"]["members"]
    assert {"checkout-revamp/test-writer", "checkout-revamp/ui-dev", "perf-audit/indexer"} <= set(members)
    assert data["runs"]["started"] == sum(members.values()) >= 8
    assert data["lead"]["create"] == 2 and data["lead"]["assign"] == 2
    run = next(iter(all_runs_of(root, "perf-audit", "indexer")))
    assert run["argv"][1:] == ["-m", "teamdeck.sim.agent"] and run["trigger"] == "created"
    assert DEMO_NOW.isoformat()[:13] == run["createdAt"][:13]  # the demo clock, not the wall clock
    output = json.loads(
        (root / "tasks" / "search-index" / "agents" / "indexer" / "artifacts" / "final.json").read_text()
    )
    assert output["status"] == "blocked" and output["questions"]
    # test-writer leaves the pending request unanswered (stuck: it answers a resent one),
    # profiler asks permission to run a tool, bench-runner sends a plan: all in the queue.
    assert "shutdown_approved" not in kinds_from(root, "checkout-revamp", "test-writer")
    assert "idle_notification" in kinds_from(root, "checkout-revamp", "test-writer")
    assert "permission_request" in kinds_from(root, "perf-audit", "profiler")
    assert "plan_approval_request" in kinds_from(root, "perf-audit", "bench-runner")
    # log-miner crashes at every start: the runner records a failed run and retries it
    assert all_runs_of(root, "perf-audit", "log-miner")[0]["outcome"] == "failed"
    assert "retry 1 of 1 for perf-audit/log-miner" in result.err


def all_runs_of(root: Path, team: str, member: str) -> list[dict]:
    return [yaml.safe_load(path.read_text()) for path in sorted((root / "runs" / team / member).glob("*/run.yaml"))]


def test_demo_on_an_existing_workspace_runs_its_agents_in_place_on_the_real_clock(demo: Path, run_cli):
    result = run_cli(demo, "demo", "--no-tui", "--duration", "6", "--speed", "40")
    assert result.code == 0, result.err
    assert "(an existing workspace)" in result.err
    assert result.out.startswith("demo ran ") and str(demo) in result.out
    assert " started by the runner (" in result.out and "checkout-revamp/ui-dev: " in result.out
    idle = [
        message
        for message in lead_inbox(demo, "checkout-revamp")
        if decode_text(message["text"]).KIND == "idle_notification"
    ]
    assert idle[-1]["timestamp"][:10] == utc_now().date().isoformat()  # not the demo clock
    assert "the agents " in result.err or "agents added" in result.err or "agents written" in result.err


def test_demo_refuses_bad_options_in_one_line_and_copies_nothing(tmp_path: Path, run_cli):
    root = tmp_path / "never"
    result = run_cli(root, "demo", "--no-tui", "--speed", "0")
    assert result.code == 1
    assert result.err.strip() == "teamdeck: Could not start the demo: --speed must be positive"
    assert not root.exists()
    afile = tmp_path / "afile"
    afile.write_text("x")
    result = run_cli(afile, "demo", "--no-tui", "--duration", "0")
    assert result.code == 1 and "not a directory" in result.err.lower() and "Traceback" not in result.err


def test_validate_on_the_demo_reports_only_the_deliberately_invalid_output(demo: Path, run_cli):
    result = run_cli(demo, "validate", "--json")
    assert result.code == 1, result.err
    assert {problem["path"] for problem in result.json["problems"]} == {
        "tasks/payment-retry/agents/schema-check/artifacts/final.json"
    }
