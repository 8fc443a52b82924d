"""The seeds end to end with `runtime: command` agents (docs/protocol.md, "Running the
agents"): a Gitea story replayed into the webhook makes exactly the agents it writes to
run (seed 001); a delegation starts its crafter, whose run reads the task_assignment
(seed 002)."""

from __future__ import annotations

import json
import sys
import time

from support import forge_world
from support.runner_world import AGENT, World, wait_for

from teamdeck.protocol.coordination.delegation import delegate
from teamdeck.protocol.task.create import create_task

COMMAND = [sys.executable, str(AGENT), "{team}", "{member}", "{run_id}"]


def test_a_replayed_gitea_story_runs_the_agents_it_writes_to(tmp_path) -> None:
    w = World(tmp_path / "ws", [], team=forge_world.TEAM, make_team=forge_world.make_team)
    w.start()
    try:
        with forge_world.serving(w.ws) as url:
            for name in forge_world.STORY[:6]:
                headers, body = forge_world.delivery(name)
                assert forge_world.post(url, headers, body).status_code < 300, name
        written_to = {member for member in forge_world.AGENTS if forge_world.inbox(w.ws, member)}
        assert written_to  # the story writes to some of the agents
        wait_for(lambda: {e["member"] for e in w.agent_log()} == written_to and not any(r.live for r in w.runs()), 60)
        time.sleep(1)
        assert {run.member for run in w.runs()} == written_to  # nobody else ran, not the lead
        read = {text for entry in w.agent_log() for text in entry["texts"]}
        story = {entry["text"] for member in written_to for entry in forge_world.inbox(w.ws, member)}
        assert story <= read  # every message the story wrote to an agent was read by one of its runs
    finally:
        w.stop()


def test_a_delegation_starts_its_crafter_with_the_assignment(world) -> None:
    w = world(["crafter", "verifier"])
    create_task(w.ws, "t1", "Parser", team="crew", extra={"spec": {"objective": "Parse it"}})
    w.start()
    delegate(w.ws, "t1", "crafter", role="implementor", note="start with the lexer")
    entry = wait_for(lambda: w.agent_log(), 20)[0]
    assert entry["member"] == "crafter"
    assignment = json.loads(entry["texts"][0])
    assert assignment["type"] == "task_assignment" and assignment["taskId"] == "t1"
    time.sleep(0.5)
    assert w.runs("verifier") == []
