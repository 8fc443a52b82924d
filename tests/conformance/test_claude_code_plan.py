"""Issue 21, Done-when 2: the plan story with the real Claude Code for one crafter.

A plan of two waves (Lexer and Grammar, then Parser) goes from import and approval to
COMPLETED with nothing but ``teamdeck run`` running and no ``plan run`` typed. Alice is
a ``runtime: command`` crafter (tests/support/autowork_crafter.py); coder is the pinned Claude
Code (``runtime: claude-code``) against the scripted model:

1. the automatic step delegates Grammar to coder: the task_assignment in its inbox wakes
   it, and the model's first request carries that delegation (after coder's roster
   prompt; its role prompt is in the system prompt, and the resumed session keeps it);
   the model reports with teamdeck's ``report_to_parent`` (the crafter's reporting
   call: a crafter may not delegate, it reports on the task it was given);
2. the wave reported, Grammar's guardian says NEEDS_CHANGES (the fix file is missing):
   its recommendations arrive as a message, which wakes coder again, and the runner
   resumes the SAME session (``--resume``): the model sees its earlier turn and the
   recommendations; it writes the fix (Claude Code's own ``Write``) and reports again;
3. PASS, wave 2 (Parser, to alice), PASS: COMPLETED.

What is asserted is on disk (the plan, the task events with actor ``teamdeck:autowork``
and their causes, the run records with their session) and in what the model was sent.
C13: the approval's own follow-up and the runner's automatic step race for the plan's
first move; it is taken once, by either.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.claude_code import claude_env, make_home, option
from support.parser_plan import CRAFTER, GRAMMAR, PARSER, PLAN
from support.scripted_model import Reply, Request, ScriptedModel, call, say
from test_claude_code_mcp import use
from test_claude_code_runtime import prompt_of, runner, runs_of, teamdeck, wait_until

from teamdeck.protocol.autowork.steps import ACTOR
from teamdeck.protocol.coordination.roles import role_prompt
from teamdeck.protocol.task.planfile import load_plan, plan_events
from teamdeck.protocol.task.taskfile import read_events
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace

pytestmark = pytest.mark.slow

ROSTER_PROMPT = "You are coder, the crew's grammar crafter."
RECOMMENDATION = f"GRAMMAR-FIX: write {GRAMMAR}.fixed, then report again"
CHECK = f"sh -c 'test -f {GRAMMAR}.fixed || {{ echo \"{RECOMMENDATION}\"; exit 3; }}'"
TIMEOUT_S = 240
RECORD_ID = re.compile(r" ?\(?\bg[av]-[0-9a-z]{26}\)?")
"""A guardian assignment's or verdict's id in an event's reason (they differ each run)."""


def assignment(request: Request) -> dict[str, Any]:
    """The task_assignment the session's prompt carries (the delegation, as the runner
    handed it over); the script fails the test when it is not there."""
    for line in prompt_of(request).splitlines():
        if line.startswith("{") and '"task_assignment"' in line:
            found: dict[str, Any] = json.loads(line)
            return found
    raise AssertionError(f"no task_assignment in coder's prompt: {prompt_of(request)!r}")


def approved_by(actor: str) -> bool:
    """Whether ``actor`` may have taken the plan's first step after its approval: the
    approval's own follow-up (``plan run --no-start``, as the person), or autowork when
    it looked first."""
    return actor.startswith("human:") or actor == ACTOR


def latest_prompt(request: Request) -> str:
    """The text of the request's last message (a resumed run's prompt, on its first request)."""
    content = request.messages[-1]["content"]
    return content if isinstance(content, str) else "\n".join(block.get("text", "") for block in content)


def fix(root: Path) -> Any:
    """The resumed run's first turn: the recommendations are its prompt, so write the
    file they ask for (Claude Code's Write, allowed by ``acceptEdits``)."""

    def turn(request: Request) -> Reply:
        assert RECOMMENDATION in latest_prompt(request), request.messages[-1]
        return call("Write", {"file_path": str(root / f"{GRAMMAR}.fixed"), "content": "fixed\n"})

    return turn


def report(summary: str) -> Any:
    """A turn reporting the assigned task completed over teamdeck's MCP server."""
    return use(
        "teamdeck",
        "report_to_parent",
        lambda request: {"task": assignment(request)["taskId"], "status": "completed", "summary": summary},
    )


def make_world(root: Path, env: dict[str, str]) -> Workspace:
    """The crew (alice, then coder: the order the plan's waves go to idle crafters), its
    settings (short autowork interval) and the imported plan with Grammar's guardian."""
    root.mkdir(parents=True)
    ws = Workspace.at(root, actor="human:tester")
    create_team(ws, "crew")
    add_member(ws, "crew", "alice", role="crafter")
    add_member(ws, "crew", "coder", role="crafter", prompt=ROSTER_PROMPT)
    crafter = [sys.executable, str(CRAFTER), "{workspace}", "{team}", "{member}"]
    settings = {
        "agents": {
            "defaults": {"retries": 0, "backoff_s": 0.2, "grace_s": 2},
            "crew/alice": {"runtime": "command", "command": crafter},
            "crew/coder": {"runtime": "claude-code", "permission_mode": "acceptEdits"},
        },
        "autowork": {"everySeconds": 0.5},
    }
    (root / ".teamdeck.yaml").write_text(yaml.safe_dump(settings))
    (root.parent / "parser.md").write_text(PLAN)
    for args in (
        ("plan", "import", str(root.parent / "parser.md"), "--team", "crew"),
        ("guardian", "set", GRAMMAR, "--code", "command", "--command", CHECK, "--needs-changes-exit", "3"),
    ):
        done = teamdeck(root, env, *args)
        assert done.returncode == 0, (args, done.stderr)
    return ws


def test_a_claude_code_crafter_takes_its_task_through_a_changes_round_and_the_plan_completes(
    tmp_path: Path, claude: Path, model: ScriptedModel
) -> None:
    root = tmp_path / "ws"
    env = {
        **os.environ,
        **claude_env(make_home(tmp_path / "home"), model.env(), TEAMDECK_CLAUDE=str(claude)),
        "TEAMDECK_WORKSPACE": "",
        "PYTHONUNBUFFERED": "1",
    }
    ws = make_world(root, env)
    model.script(
        "coder",
        report("coder: the grammar is written"),
        say("reported the grammar"),
        fix(root),
        report("coder: the grammar, fixed"),
        say("fixed and reported"),
        when=ROSTER_PROMPT,
    )

    log = tmp_path / "runner.log"
    with runner(root, env, log):
        approved = teamdeck(root, env, "gate", "approve", "parser", "plan-approval", "--note", "go")
        assert approved.returncode == 0, approved.stderr
        wait_until("the plan is COMPLETED", lambda: load_plan(ws, "parser").state == "COMPLETED", TIMEOUT_S, log)
        wait_until("coder's last run is recorded", lambda: len(runs_of(root, "crew", "coder")) == 2, 30, log)
        wait_until("its run ended", lambda: runs_of(root, "crew", "coder")[-1][1]["state"] == "ended", 30, log)

    # coder's two runs: one Claude Code session, the second resumed
    [(_, first), (_, second)] = runs_of(root, "crew", "coder")
    session = first["sessionId"]
    assert option(first["argv"], "--session-id") == session and option(first["argv"], "--resume") is None
    assert option(second["argv"], "--resume") == session == second["sessionId"]
    assert [(run["trigger"], run["outcome"]) for run in (first, second)] == [("message", "succeeded")] * 2
    assert (first["result"], second["result"]) == ("reported the grammar", "fixed and reported")

    # what the model was sent: the delegation first; on resume, the earlier turn and the recommendations
    asked = model.turns_of("coder")
    assert {request.session_id for request in asked} == {session}
    delegation = assignment(asked[0])
    assert (delegation["taskId"], delegation["subject"]) == (GRAMMAR, "Grammar")
    assert prompt_of(asked[0]).startswith(ROSTER_PROMPT)
    assert (
        f"report on task {GRAMMAR} with the report_to_parent tool of teamdeck's MCP server" in delegation["description"]
    )
    resumed = next(request for request in asked if RECOMMENDATION in latest_prompt(request))
    # the crafter's role prompt, given on the first run only, stays in the resumed session's system prompt
    assert option(first["argv"], "--append-system-prompt") == role_prompt("crafter").strip()
    assert option(second["argv"], "--append-system-prompt") is None
    assert all("# Your role: crafter" in request.system_text for request in (asked[0], resumed))
    assert latest_prompt(resumed).startswith(
        '<teammate-message teammate_id="team-lead" summary="Changes needed on parser.02-grammar">\n'
        f"Guardian command asks for changes to task {GRAMMAR} (verdict "
    )
    assert f"\n- {RECOMMENDATION}\nMake the changes, then report on task {GRAMMAR} again" in latest_prompt(resumed)
    assert prompt_of(resumed) == prompt_of(asked[0])  # the same conversation, continued...
    [earlier] = resumed.tool_uses("mcp__teamdeck__report_to_parent")  # ...with the earlier turn in it
    assert earlier["input"]["summary"] == "coder: the grammar is written"
    assert "reported the grammar" in resumed.text
    results = asked[-1].results_of("mcp__teamdeck__report_to_parent")
    assert len(results) == 2 and not any(result.get("is_error") for result in results)

    # the plan moved by itself: the approval made it READY, every later move is autowork's, with its cause
    plan = load_plan(ws, "parser")
    assert (plan.state, plan.currentWave) == ("COMPLETED", 2)
    moves = [event for event in plan_events(ws, "parser") if event.type == "plan.state_changed"]
    assert approved_by(moves[0].actor) and moves[0].payload["to"] == "READY"
    assert {event.actor for event in moves[1:]} == {ACTOR}
    assert [event.payload["to"] for event in moves[1:]] == [
        "EXECUTING", "WAVE_COMPLETE", "VERIFYING", "NEEDS_FIX",
        "EXECUTING", "WAVE_COMPLETE", "VERIFYING", "EXECUTING", "WAVE_COMPLETE", "VERIFYING", "COMPLETED",
    ]  # fmt: skip
    assert all(event.payload.get("reason") for event in moves)

    # Grammar: delegated to coder, reported, NEEDS_CHANGES, reported again, PASS, done; each automatic step
    # autowork's (the verdicts the guardian's), with its cause
    events = read_events(ws, GRAMMAR)
    steps = [
        (event.type, event.actor, RECORD_ID.sub("", cause))
        for event in events
        if event.type != "join.completed"
        and (cause := event.payload.get("reason") or event.payload.get("status") or event.payload.get("summary"))
    ]
    assert steps[0][0] == "task.state_changed" and approved_by(steps[0][1]) and steps[0][2] == "plan parser approved"
    assert steps[1:] == [
        ("task.state_changed", ACTOR, "delegated to coder"),
        ("worker.reported", "agent:coder", "completed"),
        ("task.ready_for_verification", ACTOR, "plan parser, wave 1"),
        *[("task.state_changed", ACTOR, cause) for cause in ("guardian command assigned", "guardian command started")],
        ("guardian.verdict_applied", ACTOR, "NEEDS_CHANGES"),
        ("task.state_changed", ACTOR, "verdict: NEEDS_CHANGES"),
        ("worker.reported", "agent:coder", "completed"),
        ("task.ready_for_verification", ACTOR, "plan parser, wave 1"),
        *[("task.state_changed", ACTOR, cause) for cause in ("guardian command assigned", "guardian command started")],
        ("guardian.verdict_applied", ACTOR, "PASS"),
        ("task.state_changed", ACTOR, "verdict: PASS"),
        ("task.state_changed", ACTOR, "verified by command"),
    ]
    [delegated] = [event for event in events if event.type == "task.delegated"]
    assert (delegated.actor, delegated.payload["worker"]["member"]) == (ACTOR, "coder")
    verdicts = [event for event in events if event.type == "guardian.verdict_recorded"]
    assert [(event.actor, event.payload["verdict"]["status"]) for event in verdicts] == [
        ("guardian:command", "NEEDS_CHANGES"),
        ("guardian:command", "PASS"),
    ]
    assert [event.payload["summary"] for event in events if event.type == "worker.reported"] == [
        "coder: the grammar is written",
        "coder: the grammar, fixed",
    ]
    final = json.loads(ws.final_output(GRAMMAR, "coder").read_text())
    assert (final["status"], final["summary"]) == ("completed", "coder: the grammar, fixed")
    assert (root / f"{GRAMMAR}.fixed").read_text() == "fixed\n"  # written by the client's Write tool
    assert {
        event.payload["worker"]["member"] for event in read_events(ws, PARSER) if event.type == "task.delegated"
    } == {"alice"}
