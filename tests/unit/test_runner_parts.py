"""The runner's pure parts (docs/protocol.md, "Running the agents"): the wake queue's
order and limits, budgets, what a changed path means, the command runtime's argv and
environment, and reading a run's result line (F3: a torn last line is not read)."""

from __future__ import annotations

import json
from pathlib import Path

from teamdeck.model.agents import AgentConfig
from teamdeck.protocol.runs.decisions import fold_decisions
from teamdeck.runner.budgets import overrun
from teamdeck.runner.changes import classify
from teamdeck.runner.wakes import Wake, WakeQueue
from teamdeck.runtime.claude.results import outcome_of
from teamdeck.runtime.command import COMMAND
from teamdeck.runtime.config import check_agents
from teamdeck.runtime.spec import RunRequest


def test_the_queue_keeps_arrival_order_one_wake_per_member_and_a_full_team_holds_up_no_other() -> None:
    queue = WakeQueue()
    for number, (team, member) in enumerate([("a", "1"), ("a", "2"), ("b", "1"), ("a", "3"), ("b", "2")]):
        assert queue.push(Wake(team, member, "message", float(number)))
    assert not queue.push(Wake("a", "1", "message", 9.0))  # already waiting
    limits = {"a": 1}
    taken = queue.take([("a", "busy")], 3, limits.get)
    assert [w.key for w in taken] == [("b", "1"), ("b", "2")]  # a is full; b goes, in order
    assert [w.key for w in queue.waiting] == [("a", "1"), ("a", "2"), ("a", "3")]
    assert [w.key for w in queue.take([], 2, limits.get)] == [("a", "1")]
    assert [w.key for w in queue.take([], 5, {}.get)] == [("a", "2"), ("a", "3")]


def test_the_global_limit_counts_the_runs_going() -> None:
    queue = WakeQueue()
    for number in range(5):
        queue.push(Wake("t", f"m{number}", "message", float(number)))
    assert [w.member for w in queue.take([("t", "x"), ("u", "y")], 4, {}.get)] == ["m0", "m1"]


def test_budgets_a_members_own_then_its_teams_raised_by_answers() -> None:
    agents = check_agents({"t/*": {"runtime": "command", "command": ["x"], "team_budget_usd": 10}})
    member = AgentConfig(runtime="command", options={"command": ["x"]}, budget_usd=2)
    assert overrun(agents, member, [], {("t", "a"): 1.5}, "t", "a") is None
    over = overrun(agents, member, [], {("t", "a"): 2.0}, "t", "a")
    assert over is not None and over.key == "run-budget:t/a:2" and over.who == "a"
    raised = fold_decisions(
        [
            {"type": "asked", "decision": over.key, "kind": "run-budget", "team": "t", "member": "a", "allowance": 2},
            {"type": "answered", "decision": over.key, "answer": "raise", "raiseUsd": 3},
        ]
    )
    assert overrun(agents, member, raised, {("t", "a"): 2.0}, "t", "a") is None
    team = overrun(agents, AgentConfig(runtime="command"), [], {("t", "a"): 6.0, ("t", "b"): 4.0}, "t", "b")
    assert team is not None and team.member == "*" and team.who == "team t" and team.spent == 10


def test_only_settings_rosters_inboxes_requests_and_answers_concern_the_runner(tmp_path: Path) -> None:
    paths = [
        tmp_path / ".teamdeck.yaml",
        tmp_path / "teams" / "t" / "config.json",
        tmp_path / "teams" / "t" / "inboxes" / "dev.json",
        tmp_path / "runs" / "requests.jsonl",
        tmp_path / "runs" / "decisions.jsonl",
        tmp_path / "runs" / "t" / "dev" / "r-x" / "output.log",
        tmp_path / "tasks" / "t1" / "task.yaml",
        Path("/elsewhere/teams/t/config.json"),
    ]
    found = classify(tmp_path, paths)
    assert found.settings and found.requests and found.answers
    assert found.teams == {"t"} and found.members == {("t", "dev")}
    assert classify(tmp_path, paths[5:]) == type(found)()


def _request(tmp_path: Path, config: AgentConfig) -> RunRequest:
    return RunRequest(tmp_path, "crew", "dev", "r-1", tmp_path / "runs" / "crew" / "dev" / "r-1", config)


def test_the_command_runtime_fills_the_placeholders_and_the_environment(tmp_path: Path) -> None:
    config = AgentConfig(
        runtime="command",
        options={
            "command": ["run", "{workspace}/x", "{team}:{member}", "{run_id}", "{{lit}}"],
            "cwd": "sub",
            "env": {"K": "v"},
        },
    )
    launch = COMMAND.launch(_request(tmp_path, config))
    assert launch.argv == ("run", f"{tmp_path}/x", "crew:dev", "r-1", "{lit}")
    assert launch.cwd == tmp_path / "sub" and not launch.marks_read and launch.stdin is None
    assert {k: launch.env[k] for k in ("TEAMDECK_WORKSPACE", "TEAMDECK_TEAM", "TEAMDECK_MEMBER", "TEAMDECK_RUN_ID", "K")} == {
        "TEAMDECK_WORKSPACE": str(tmp_path), "TEAMDECK_TEAM": "crew", "TEAMDECK_MEMBER": "dev",
        "TEAMDECK_RUN_ID": "r-1", "K": "v",
    }  # fmt: skip
    assert launch.env["TEAMDECK_RUN_MESSAGES"].endswith("runs/crew/dev/r-1/messages.json")


def test_a_result_line_reports_session_usage_and_cost_and_a_torn_one_is_not_read(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "crew" / "dev" / "r-1"
    run_dir.mkdir(parents=True)
    log = run_dir / "output.log"
    result = {
        "type": "result",
        "is_error": False,
        "session_id": "s-1",
        "total_cost_usd": 0.25,
        "usage": {"input_tokens": 7},
        "result": "ok",
    }
    log.write_text("noise\n" + json.dumps({"type": "assistant"}) + "\n" + json.dumps(result) + "\n")
    outcome = COMMAND.outcome(_request(tmp_path, AgentConfig(runtime="command", options={"command": ["x"]})), 0)
    assert (outcome.session_id, outcome.cost_usd, dict(outcome.usage or {}), outcome.result, outcome.error) == (
        "s-1", 0.25, {"input_tokens": 7}, "ok", None,
    )  # fmt: skip
    with log.open("a") as handle:
        handle.write(json.dumps({**result, "is_error": True, "subtype": "error_max_turns", "total_cost_usd": 1})[:-5])
    assert outcome_of(log).cost_usd == 0.25  # the torn line is skipped
    with log.open("a") as handle:
        handle.write("\n" + json.dumps({**result, "is_error": True, "subtype": "error_max_turns", "result": ""}) + "\n")
    assert outcome_of(log).error == "the run reported an error (error_max_turns)"
    assert outcome_of(tmp_path / "missing.log").cost_usd is None
