"""``teamdeck demo --no-tui``: the runner and the demo's agents without the TUI, through the real CLI."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import yaml

from teamdeck.clock import parse_iso, utc_now
from teamdeck.model.team import decode_text


def inbox_of(root: Path, team: str, member: str) -> list[dict]:
    return json.loads((root / "teams" / team / "inboxes" / f"{member}.json").read_text())


def lead_inbox(root: Path, team: str) -> list[dict]:
    return inbox_of(root, team, "team-lead")


def kinds_from(root: Path, team: str, sender: str) -> list[str]:
    return [decode_text(m["text"]).KIND for m in lead_inbox(root, team) if m["from"] == sender]


def test_demo_copies_the_demo_into_an_empty_directory_and_the_runner_runs_its_agents(tmp_path: Path, run_cli):
    """What the demo shows is what the runner does: every answer below was written by an
    agent process the runner started (recorded under runs/), on the real clock."""
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
    assert run["createdAt"][:10] == utc_now().date().isoformat()  # the real clock: the copy was rebased to now
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


def test_the_demo_copy_is_rebased_to_now_so_the_cli_beside_it_sees_the_same_world(tmp_path: Path, run_cli):
    """The demo and a shell beside it are one world: its copy's history ends a few
    minutes ago on the real clock, so `teamdeck status` on it counts the ages the TUI
    shows (they used to be 275 days: the demo ran on a shifted clock the CLI did not
    know), and a message sent into it is its newest, seconds after the rest."""
    root = tmp_path / "copy"
    result = run_cli(root, "demo", "--no-tui", "--duration", "0", "--json")
    assert result.code == 0, result.err
    status = run_cli(root, "status", "--json")
    assert status.code == 0, status.err
    assert status.json["overview"]["oldestGateAge"] == "45m"  # checkout-api's gate, 45 min before the capture

    sent = run_cli(root, "send", "checkout-revamp", "ui-dev", "Are you there?", "--summary", "ping")
    assert sent.code == 0, sent.err
    (newest, *earlier) = sorted(
        (parse_iso(message["timestamp"]) for message in inbox_of(root, "checkout-revamp", "ui-dev")), reverse=True
    )
    assert newest - utc_now() < timedelta(seconds=1)
    assert timedelta(0) < newest - max(earlier) < timedelta(minutes=30)


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
