"""``teamdeck demo --no-tui``: the simulated agents on their own, through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from teamdeck.model.claude import decode_text


def lead_inbox(root: Path, team: str) -> list[dict]:
    return json.loads((root / "teams" / team / "inboxes" / "team-lead.json").read_text())


def test_demo_copies_the_demo_into_an_empty_directory_and_simulates_on_it(tmp_path: Path, run_cli):
    root = tmp_path / "fresh"
    result = run_cli(root, "demo", "--no-tui", "--duration", "1.5", "--speed", "20", "--json")
    assert result.code == 0, result.err
    data = result.json
    assert data["workspace"] == str(root) and data["fresh"] is True and data["errors"] == []
    assert data["simulatedSeconds"] >= 20
    assert f"teamdeck demo: {root} (a fresh copy of the demo workspace)" in result.err
    output = json.loads(
        (root / "tasks" / "search-index" / "agents" / "indexer" / "artifacts" / "final.json").read_text()
    )
    assert output["status"] == "blocked" and output["questions"]
    kinds = [decode_text(message["text"]).KIND for message in lead_inbox(root, "checkout-revamp")]
    # test-writer leaves the pending request unanswered (stuck: it answers a resent one),
    # and profiler asks permission to run a tool: both wait in the decision queue.
    from_test_writer = [
        decode_text(message["text"]).KIND
        for message in lead_inbox(root, "checkout-revamp")
        if message["from"] == "test-writer"
    ]
    assert "shutdown_approved" not in from_test_writer and "idle_notification" in kinds[-6:]
    perf = [decode_text(message["text"]).KIND for message in lead_inbox(root, "perf-audit")]
    assert "permission_request" in perf
    plan = [
        message
        for message in lead_inbox(root, "perf-audit")
        if decode_text(message["text"]).KIND == "plan_approval_request"
    ]
    assert plan and plan[-1]["from"] == "bench-runner"


def test_demo_on_an_existing_workspace_simulates_in_place_on_the_real_clock(demo: Path, run_cli):
    result = run_cli(demo, "demo", "--no-tui", "--duration", "0.5", "--speed", "40")
    assert result.code == 0, result.err
    assert "(an existing workspace)" in result.err
    assert result.out.startswith("simulated ") and str(demo) in result.out
    idle = [
        message
        for message in lead_inbox(demo, "checkout-revamp")
        if decode_text(message["text"]).KIND == "idle_notification"
    ]
    assert idle[-1]["timestamp"] > "2026-03-01T12:00:00"


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
