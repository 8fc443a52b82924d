"""Issue 21's Done-when with the runner: a plan of two waves with `command` agents started
by `teamdeck run` goes from import and approval to COMPLETED with no `plan run` typed,
one NEEDS_CHANGES round included; bob never answers: nudged, then his decision appears,
and reassigning it (teamdeck decisions decide ... reassign --note carol) finishes the
plan. The crafters are tests/support/autowork_crafter.py, started by the runner, which also takes
the automatic steps (runner/autowork_loop.py): nothing but `teamdeck run` is running."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from support.parser_plan import CRAFTER, GRAMMAR, LEXER, PLAN
from support.runner_world import World, wait_for

from teamdeck.protocol.task.planfile import load_plan, plan_events
from teamdeck.protocol.task.taskfile import load_task, read_events


def test_the_runner_takes_a_plan_to_completed_with_a_changes_round_and_a_reassigned_stall(tmp_path: Path) -> None:
    crafter = [sys.executable, str(CRAFTER), "{workspace}", "{team}", "{member}"]
    world = World(
        tmp_path / "ws",
        ["alice", "bob", "carol"],
        {"crew/*": {"runtime": "command", "command": crafter}, "crew/bob": {"command": [*crafter, "--silent"]}},
    )
    settings = (world.root / ".teamdeck.yaml").read_text()
    (world.root / ".teamdeck.yaml").write_text(
        settings + "autowork:\n  everySeconds: 0.5\n  stallAfterSeconds: 4\n  nudges: 1\n  backoff: 1\n"
    )
    (tmp_path / "parser.md").write_text(PLAN)
    assert world.cli("plan", "import", str(tmp_path / "parser.md"), "--team", "crew").returncode == 0
    check = f"test -f {LEXER}.fixed"
    assert (
        world.cli(
            "guardian", "set", LEXER, "--code", "command", "--command", check, "--needs-changes-exit", "1"
        ).returncode
        == 0
    )
    world.start()
    try:
        assert world.cli("gate", "approve", "parser", "plan-approval", "--note", "go").returncode == 0

        def stall_key() -> str | None:
            rows = json.loads(world.cli("decisions", "list", "--json").stdout)["decisions"]
            return next((row["key"] for row in rows if row["key"].startswith(f"task:{GRAMMAR}:stall-")), None)

        key = wait_for(stall_key, 120, 0.5)
        assert world.cli("decisions", "decide", key, "reassign", "--note", "carol").returncode == 0
        wait_for(lambda: load_plan(world.ws, "parser").state == "COMPLETED", 120, 0.5)
    finally:
        world.stop()
    assert [worker.member for worker in load_task(world.ws, GRAMMAR).workers] == ["carol"]
    verdicts = [
        event.payload["verdict"]["status"]
        for event in read_events(world.ws, LEXER)
        if event.type == "guardian.verdict_recorded"
    ]
    assert verdicts == ["NEEDS_CHANGES", "PASS"]
    nudges = [event.payload["member"] for event in read_events(world.ws, GRAMMAR) if event.type == "member.nudged"]
    assert nudges == ["bob"]
    moves = [event for event in plan_events(world.ws, "parser") if event.type == "plan.state_changed"]
    assert {event.actor for event in moves[1:]} == {"teamdeck:autowork"}
    assert {run.member for run in world.runs()} >= {"alice", "carol"}  # the crafters were started by the runner
    assert "autowork: parser.02-grammar: nudge 1 sent to bob" in world.output()
