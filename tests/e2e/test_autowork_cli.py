"""Issue 21 items 1-3 as a user runs them, through the real CLI: a two-wave plan is
imported and approved, then only `teamdeck supervise --once` (the runner's step) and the
crafters' own commands run - no `plan run`. The crafters are command agents
(tests/support/autowork_crafter.py) that this test starts when they have unread messages, as the
runner will (the runner is not on main yet). One task needs changes once; bob never
answers: nudged, then asked about, and reassigning his task to carol finishes the plan.
Real time, with waits of five seconds (stallAfterSeconds: 5): a crafter that answers
within one round may still be nudged on a slow machine, so the counts are bob's."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from support.parser_plan import CRAFTER, GRAMMAR, LEXER, PLAN

from teamdeck.protocol.task.planfile import load_plan, plan_events
from teamdeck.protocol.task.taskfile import load_task, read_events
from teamdeck.protocol.team.messaging.reading import list_inbox
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "teamdeck", "-w", str(root), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def test_a_plan_completes_with_only_supervise_and_the_crafters(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    ws = Workspace.at(root, actor="human:tester")
    create_team(ws, "crew")
    for member in ("alice", "bob", "carol"):
        add_member(ws, "crew", member)
    (root / ".teamdeck.yaml").write_text("autowork:\n  stallAfterSeconds: 5\n  nudges: 1\n  backoff: 1\n")
    (tmp_path / "parser.md").write_text(PLAN)
    _cli(root, "plan", "import", str(tmp_path / "parser.md"), "--team", "crew")
    check = f"test -f {LEXER}.fixed"
    _cli(root, "guardian", "set", LEXER, "--code", "command", "--command", check, "--needs-changes-exit", "1")
    _cli(root, "gate", "approve", "parser", "plan-approval", "--note", "go")

    silent = {"bob"}
    decided = False
    steps: list[dict] = []
    deadline = time.monotonic() + 240
    while load_plan(ws, "parser").state != "COMPLETED":
        assert time.monotonic() < deadline, steps
        steps += json.loads(_cli(root, "supervise", "--once", "--json").stdout)["steps"]
        for member in ("alice", "bob", "carol"):
            if list_inbox(ws, "crew", member, unread_only=True):
                argv = [
                    sys.executable,
                    str(CRAFTER),
                    str(root),
                    "crew",
                    member,
                    *(["--silent"] if member in silent else []),
                ]
                subprocess.run(argv, check=True, timeout=120)
        waiting = json.loads(_cli(root, "decisions", "list", "--json").stdout)["decisions"]
        stall = next((row for row in waiting if row["key"].startswith(f"task:{GRAMMAR}:stall-")), None)
        if stall is not None:
            assert "(idle now: alice, carol)" in stall["questions"][0] or "carol" in stall["questions"][0]
            _cli(root, "decisions", "decide", stall["key"], "reassign", "--note", "carol")
            decided = True
        time.sleep(0.5)

    about_bob = [step["kind"] for step in steps if step["cause"].startswith("bob ")]
    assert decided and about_bob == ["nudge", "stall-decision"]
    assert any("NEEDS_CHANGES" in step["summary"] for step in steps)  # the lexer's round of changes
    assert [worker.member for worker in load_task(ws, GRAMMAR).workers] == ["carol"]
    assert all(load_task(ws, task).state == "done" for task in ("parser", LEXER, GRAMMAR, "parser.03-parser"))
    nudges = [event for event in read_events(ws, GRAMMAR) if event.type == "member.nudged"]
    assert [event.payload["member"] for event in nudges] == ["bob"]
    moves = [event for event in plan_events(ws, "parser") if event.type == "plan.state_changed"]
    assert moves[0].payload["to"] == "READY"  # the approval's own follow-up, as the person decided
    assert {event.actor for event in moves[1:]} == {"teamdeck:autowork"}  # every other move is automatic
