"""The cost a run reports, read from its agent-written output log: only a finite number,
0 or more, is a cost; anything else, and a result line that cannot be read, is one
problem of the run (never a run that cost nothing)."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from teamdeck.model.agents import AgentConfig
from teamdeck.model.reported import all_finite, read_cost
from teamdeck.model.run import RunRecord
from teamdeck.protocol.runs.decisions import fold_decisions
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.runner.budgets import Unpriced, overrun
from teamdeck.runner.execution import Execution, new_record
from teamdeck.runtime.claude import results
from teamdeck.runtime.claude.headless import CLAUDE_CODE
from teamdeck.runtime.command import COMMAND
from teamdeck.runtime.config import check_agents
from teamdeck.runtime.ripperdoc.headless import RIPPERDOC
from teamdeck.runtime.spec import Outcome, RunRequest
from teamdeck.store.runs import read_run
from teamdeck.store.workspace import Workspace

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@given(JSON_VALUES)
def test_b28_a_reported_value_is_a_cost_only_when_finite_and_not_below_0(value: object) -> None:
    """B28: whatever a result line holds, the cost read is a finite number >= 0 or
    none; a value that is no cost is one problem naming the key, and only a value left
    out (null) is no cost reported without a problem."""
    cost = read_cost(value, "total_cost_usd")
    is_cost = (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(float(value))
        and float(value) >= 0
    )
    if is_cost:
        assert cost == (float(value), None)  # type: ignore[arg-type]
    elif value is None:
        assert cost == (None, None)
    else:
        assert cost.usd is None and cost.problem is not None and cost.problem.startswith("total_cost_usd is ")


def test_b28_an_integer_too_large_for_a_float_is_a_problem_not_a_crash() -> None:
    """B28: ``float(10**400)`` raises; the reader says what was wrong instead."""
    assert read_cost(10**400, "totalCostUsd") == (None, "totalCostUsd is an integer too large for a cost")


def _request(tmp_path: Path, config: AgentConfig, run_id: str = "r-1") -> RunRequest:
    run_dir = tmp_path / "runs" / "crew" / "dev" / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    return RunRequest(tmp_path, "crew", "dev", run_id, run_dir, config)


COMMAND_CONFIG = AgentConfig(runtime="command", options={"command": ["x"]})


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("NaN", "NaN, not a finite number"),
        ("Infinity", "Infinity, not a finite number"),
        ("-Infinity", "-Infinity, not a finite number"),
        ("1e400", "Infinity, not a finite number"),
        ("-1", "-1, below 0"),
        ('"0.5"', "'0.5', not a number"),
        ("true", "True, not a number"),
    ],
)
def test_b28_a_result_line_whose_cost_is_no_cost_reports_the_problem(tmp_path: Path, text: str, said: str) -> None:
    """B28: the command runtime (any program's result line) and the Claude Code runtime
    report the bad value as the run's cost problem; the rest of the line still counts."""
    line = '{"type": "result", "is_error": false, "session_id": "s-1", "result": "ok", "total_cost_usd": %s}\n'
    request = _request(tmp_path, COMMAND_CONFIG)
    request.output_log.write_text(line % text)
    for runtime in (COMMAND, CLAUDE_CODE):
        outcome = runtime.outcome(request, 0)
        assert (outcome.cost_usd, outcome.session_id, outcome.result, outcome.error) == (None, "s-1", "ok", None)
        assert outcome.cost_problem is not None and outcome.cost_problem.startswith(f"total_cost_usd is {said}")


def test_b28_a_ripperdoc_result_whose_cost_is_no_cost_reports_the_problem(tmp_path: Path) -> None:
    """B28: Ripperdoc's ``totalCostUsd`` is checked by the same rule."""
    request = _request(tmp_path, AgentConfig(runtime="ripperdoc"))
    request.output_log.write_text('{"type": "result", "sessionId": "s-1", "result": "ok", "totalCostUsd": NaN}\n')
    outcome = RIPPERDOC.outcome(request, 0)
    assert (outcome.cost_usd, outcome.cost_problem) == (None, "totalCostUsd is NaN, not a finite number")


def _result(cost: float, text: str = "done") -> str:
    return json.dumps({"type": "result", "is_error": False, "total_cost_usd": cost, "result": text}) + "\n"


def test_b28_output_after_the_result_line_and_a_long_result_text_do_not_hide_its_cost(tmp_path: Path) -> None:
    """B28: the log is read from its end in bounded blocks: 300 KB printed after the
    result line, or a result text of 300 KB, still leave the cost read (the reader saw
    only the last 256 KB, and reported no cost)."""
    request = _request(tmp_path, COMMAND_CONFIG)
    request.output_log.write_text("start\n" + _result(0.25) + ("x" * 99 + "\n") * 3000)
    assert COMMAND.outcome(request, 0).cost_usd == 0.25
    request.output_log.write_text("start\n" + _result(0.5, "y" * 300_000))
    outcome = COMMAND.outcome(request, 0)
    assert (outcome.cost_usd, outcome.cost_problem, len(outcome.result or "")) == (0.5, None, 2000)
    request.output_log.write_text("start\n" + _result(0.75).rstrip("\n"))  # no newline at its end
    assert COMMAND.outcome(request, 0).cost_usd == 0.75


def test_b28_a_result_line_too_long_to_read_is_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """B28: a result line over the limit is not parsed, and said; a long line that is
    no result line is no problem (the result line before it is read)."""
    monkeypatch.setattr(results, "RESULT_BYTES", 10_000)
    request = _request(tmp_path, COMMAND_CONFIG)
    request.output_log.write_text("start\n" + _result(0.5, "y" * 20_000))
    outcome = COMMAND.outcome(request, 0)
    assert outcome.cost_usd is None
    assert outcome.cost_problem is not None and outcome.cost_problem.startswith("the result line is 20,0")
    request.output_log.write_text(_result(0.5, "y" * 20_000))  # the log's first line
    assert (COMMAND.outcome(request, 0).cost_problem or "").startswith("the result line is 20,0")
    request.output_log.write_text(_result(0.5) + "z" * 20_000 + "\n")
    assert (COMMAND.outcome(request, 0).cost_usd, COMMAND.outcome(request, 0).cost_problem) == (0.5, None)


def test_b28_no_result_line_near_the_end_of_a_longer_log_is_a_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B28: the end of a run reads a bounded part of a runaway log; a result line
    printed before it cannot be read, and that is said (a log that short with no result
    line reports no cost, as before)."""
    monkeypatch.setattr(results, "SCAN_BYTES", 50_000)
    request = _request(tmp_path, COMMAND_CONFIG)
    log = _result(0.5) + ("x" * 99 + "\n") * 1000
    request.output_log.write_text(log)
    outcome = COMMAND.outcome(request, 0)
    assert (outcome.cost_usd, outcome.cost_problem) == (
        None,
        f"no result line in the last 50,000 bytes of a log of {len(log):,} bytes",
    )
    request.output_log.write_text(("x" * 99 + "\n") * 100)
    assert COMMAND.outcome(request, 0) == Outcome()


def test_b28_a_claude_code_run_whose_result_line_cannot_be_read_is_no_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B28: the client did end with a result line: the run is not failed for "no result
    line" (and retried), its cost is the problem."""
    monkeypatch.setattr(results, "RESULT_BYTES", 10_000)
    request = _request(tmp_path, AgentConfig(runtime="claude-code"))
    request.output_log.write_text(_result(0.5, "y" * 20_000))
    outcome = CLAUDE_CODE.outcome(request, 0)
    assert outcome.error is None and (outcome.cost_problem or "").startswith("the result line is ")


RUN = {"id": "r-1", "team": "crew", "member": "dev", "runtime": "command", "trigger": "message", "createdAt": "x"}


@given(st.floats(allow_nan=True, allow_infinity=True) | st.integers() | st.text(max_size=8) | st.booleans())
def test_b28_a_run_yaml_cost_that_is_no_cost_is_kept_as_its_problem(value: object) -> None:
    """B28: run.yaml is agent-writable (and an older runner wrote ``costUsd: .nan``):
    the record is still read (its messages stay owed), with no number that is no cost
    and the problem in its place."""
    record = RunRecord.model_validate({**RUN, "costUsd": value})
    cost = read_cost(value, "costUsd")
    assert (record.costUsd, record.costProblem) == (cost.usd, f"run.yaml: {cost.problem}" if cost.problem else None)
    assert record.costUsd is None or (math.isfinite(record.costUsd) and record.costUsd >= 0)


def test_b28_token_counts_that_are_not_finite_are_left_out() -> None:
    """B28: ``usage`` holding NaN would make ``runs --json`` unwritable: it is dropped,
    on reading a run.yaml as on recording a run's end."""
    assert RunRecord.model_validate({**RUN, "usage": {"a": {"b": [1, math.inf]}}}).usage is None
    assert RunRecord.model_validate({**RUN, "usage": {"input_tokens": 7}}).usage == {"input_tokens": 7}
    assert all_finite([[[[{"x": 1.5}]]]] * 3) and not all_finite({"deep": [[[math.nan]]]})


def test_b28_a_run_whose_cost_could_not_be_read_holds_a_budgeted_member_until_a_raise_accepts_it() -> None:
    """B28: the budget check holds the member (or its team, with a team budget) at once
    for such a run, keyed by the run; a ``raise`` answer about that run accepts it."""
    agents = check_agents({"t/*": {"runtime": "command", "command": ["x"], "team_budget_usd": 10}})
    member = AgentConfig(runtime="command", options={"command": ["x"]}, budget_usd=2)
    unpriced = {("t", "a"): [Unpriced("r-9", "total_cost_usd is NaN, not a finite number")]}
    over = overrun(agents, member, [], {("t", "a"): 0.5}, "t", "a", unpriced)
    assert over is not None and (over.key, over.run, over.member) == ("run-budget:t/a:2:r-9", "r-9", "a")
    assert over.title == "a: the cost of run r-9 could not be read (total_cost_usd is NaN, not a finite number): " + (
        "raise the budget / stop"
    )
    team = overrun(agents, AgentConfig(runtime="command"), [], {}, "t", "b", unpriced)
    assert team is not None and (team.member, team.run) == ("*", "r-9")
    alone = check_agents({"t/*": {"runtime": "command", "command": ["x"]}})
    assert overrun(alone, AgentConfig(runtime="command"), [], {}, "t", "a", unpriced) is None  # no budget: not held
    accepted = fold_decisions(
        [
            {"type": "asked", "decision": over.key, "kind": "run-budget", "team": "t", "member": "a", "run": "r-9"},
            {"type": "answered", "decision": over.key, "answer": "raise", "raiseUsd": 2},
        ]
    )
    assert overrun(agents, member, accepted, {("t", "a"): 0.5}, "t", "a", unpriced) is None
    asked = fold_decisions([{"type": "asked", "decision": over.key, "kind": "run-budget", "run": "r-9"}])
    assert overrun(agents, member, asked, {("t", "a"): 0.5}, "t", "a", unpriced) is not None  # not answered yet


class _Careless:
    """A runtime plugged in that hands over whatever its log said, unchecked."""

    name = "careless"

    def outcome(self, request: RunRequest, exit_status: int | None) -> Outcome:
        return Outcome(cost_usd=math.nan, usage={"input_tokens": math.inf})


def test_b28_the_runner_checks_a_plugged_in_runtimes_numbers_too(tmp_path: Path) -> None:
    """B28: the run's end is recorded (run.yaml and its ended event) whatever a runtime
    reports: a cost that is no cost becomes the run's problem, token counts that are not
    finite are dropped."""
    ws = Workspace.at(tmp_path, actor="human:tester")
    create_team(ws, "crew")
    add_member(ws, "crew", "dev")
    request = _request(tmp_path, COMMAND_CONFIG)
    record = new_record(ws, request, "careless", time.time(), None)
    ended = Execution(ws, record, request, _Careless(), frozenset()).finish()  # type: ignore[arg-type]
    assert (ended.state, ended.costUsd, ended.usage) == ("ended", None, None)
    assert ended.costProblem == "the runtime's cost_usd is NaN, not a finite number"
    assert read_run(ws, request.run_dir).costProblem == ended.costProblem
