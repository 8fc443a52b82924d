"""One turn of a demo agent (teamdeck.sim.turn), played in this process on a copy of the
demo workspace: what each persona does with what it reads. The runner that starts these
turns as processes is tested in tests/e2e/test_demo_runs.py; here the turns are played
directly, fast (speed 1000: thinking and working take milliseconds), with a ticking clock.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from teamdeck.model.team import decode_text
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.protocol.team.messaging.handshake_writes import answer_plan, request_shutdown
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.permissions import answer_permission
from teamdeck.protocol.team.shutdown_resend import resend_shutdown
from teamdeck.protocol.team.teams import add_member, read_team
from teamdeck.sim.acts import assign_task
from teamdeck.sim.clock import DEMO_NOW
from teamdeck.sim.personas import STATUS_CHECK
from teamdeck.sim.turn import Turn
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot

CHECKOUT = "checkout-revamp"
PERF = "perf-audit"


def ticking_clock() -> Callable:
    """A deterministic clock: one millisecond later at every call (ids stay distinct)."""
    calls = {"n": 0}

    def clock():
        calls["n"] += 1
        return DEMO_NOW + timedelta(milliseconds=calls["n"])

    return clock


AGENTS_CLOCK = ticking_clock()
"""The agents' clock, one for every turn: turns follow each other in time, as runs do."""


@pytest.fixture
def human(demo: Path) -> Workspace:
    """The person at the keyboard (and the lead's side), acting on the demo copy."""
    return Workspace.at(demo, clock=ticking_clock(), actor="human:tester")


def play(demo: Path, team: str, member: str, seed: int = 7) -> list[str]:
    """Play one turn of ``team/member``; the lines its run log would hold."""
    said: list[str] = []
    ws = Workspace.at(demo, clock=AGENTS_CLOCK, actor="agent:runner")
    Turn(ws, team, member, random.Random(seed), speed=1000.0, say=said.append).play()
    return said


def inbox(root: Path, team: str, member: str) -> list[dict]:
    return json.loads((root / "teams" / team / "inboxes" / f"{member}.json").read_text())


def kinds(messages: list[dict], kind: str, sender: str | None = None) -> list:
    """The decoded messages of ``kind`` (optionally from ``sender``)."""
    return [
        decoded
        for message in messages
        if (decoded := decode_text(message["text"])).KIND == kind and sender in (None, message["from"])
    ]


def said_by(root: Path, team: str, member: str) -> list[str]:
    return [message["text"] for message in inbox(root, team, "team-lead") if message["from"] == member]


def final(root: Path, task: str, agent: str) -> dict:
    return json.loads((root / "tasks" / task / "agents" / agent / "artifacts" / "final.json").read_text())


def test_a_turn_reads_the_inbox_answers_and_ends_with_an_idle_notification(demo: Path):
    before = len(inbox(demo, CHECKOUT, "team-lead"))
    assert any(not message["read"] for message in inbox(demo, CHECKOUT, "ui-dev"))
    log = play(demo, CHECKOUT, "ui-dev")
    assert all(message["read"] for message in inbox(demo, CHECKOUT, "ui-dev"))
    new = [message for message in inbox(demo, CHECKOUT, "team-lead")[before:] if message["from"] == "ui-dev"]
    assert [decode_text(message["text"]).KIND for message in new] == ["plain", "idle_notification"]
    assert new[0]["summary"] == "Acknowledged" and new[0]["color"] == "green" and new[0]["read"] is False
    assert kinds(new, "idle_notification")[0].idleReason == "available"
    assert log[0] == "read 1 unread message: plain from team-lead" and log[-1].startswith("idle notification sent")


def test_a_status_check_is_answered_with_progress(demo: Path, human: Workspace):
    send_message(human, "quant", "guanyu-risk", "How is it going?", summary=STATUS_CHECK, sender="team-lead")
    play(demo, "quant", "guanyu-risk")
    (reply,) = [m for m in inbox(demo, "quant", "team-lead") if m["from"] == "guanyu-risk" and m.get("summary")]
    assert reply["summary"] == "Progress" and "Got it" not in reply["text"]


def test_the_stuck_shutdown_stays_stuck_until_it_is_resent_then_is_approved(demo: Path, human: Workspace):
    """test-writer answers only a shutdown request after the first one it received: the
    stuck shutdown stays in the queue until the person resends it (S-ids: seed 004 §8)."""
    request = kinds(inbox(demo, CHECKOUT, "test-writer"), "shutdown_request")[-1]
    log = play(demo, CHECKOUT, "test-writer")
    assert any("left unanswered (approve-when-resent)" in line for line in log)
    assert not kinds(inbox(demo, CHECKOUT, "team-lead"), "shutdown_approved", "test-writer")
    assert read_team(human, CHECKOUT).member("test-writer").isActive
    assert build_snapshot(human).decision(f"shutdown:{CHECKOUT}:test-writer:{request.requestId}") is not None
    resent = resend_shutdown(human, CHECKOUT, "test-writer", reason="wrapping up")
    before = len(inbox(demo, CHECKOUT, "team-lead"))
    play(demo, CHECKOUT, "test-writer")
    approvals = kinds(inbox(demo, CHECKOUT, "team-lead"), "shutdown_approved", "test-writer")
    assert [approval.requestId for approval in approvals] == [resent.sent.request_id]
    assert not read_team(human, CHECKOUT).member("test-writer").isActive
    # it shut down: no idle notification after the approval
    assert not kinds(inbox(demo, CHECKOUT, "team-lead")[before:], "idle_notification", "test-writer")


def test_personas_approve_reject_or_ignore_a_shutdown_request(demo: Path, human: Workspace):
    asked = {
        name: request_shutdown(human, team, name, reason="wrapping up").request_id
        for team, name in ((CHECKOUT, "ui-dev"), (CHECKOUT, "api-dev"), (PERF, "profiler"))
    }
    for team, name in ((CHECKOUT, "ui-dev"), (CHECKOUT, "api-dev"), (PERF, "profiler")):
        play(demo, team, name)
    checkout_lead, perf_lead = inbox(demo, CHECKOUT, "team-lead"), inbox(demo, PERF, "team-lead")
    rejected = kinds(checkout_lead, "shutdown_rejected", "ui-dev")
    assert [(reply.requestId, bool(reply.reason)) for reply in rejected] == [(asked["ui-dev"], True)]
    assert read_team(human, CHECKOUT).member("ui-dev").isActive
    # api-dev consumed the request (it is read) but never answers: "not consumed".
    assert not [r for r in checkout_lead if r["from"] == "api-dev" and decode_text(r["text"]).KIND.startswith("shut")]
    assert all(message["read"] for message in inbox(demo, CHECKOUT, "api-dev"))
    assert [reply.requestId for reply in kinds(perf_lead, "shutdown_approved", "profiler")] == [asked["profiler"]]
    assert not read_team(human, PERF).member("profiler").isActive


def test_an_assigned_task_brings_a_permission_request_whose_later_answer_is_acted_on(demo: Path, human: Workspace):
    """profiler asks permission to run its tool, waits in its run (here 30 ms at speed
    1000) and ends its turn unanswered; the answer wakes it again and it acts on it."""
    assign_task(human, PERF, "profiler", "7", "Profile the search benchmark", "Record a profile.")
    log = play(demo, PERF, "profiler")
    assert any(line.startswith("no answer within 30 s") for line in log)
    requests = kinds(inbox(demo, PERF, "team-lead"), "permission_request", "profiler")
    assert len(requests) == 1 and requests[0].tool_name == "Bash"
    gate = next(gate for gate in build_snapshot(human).decisions if gate.kind == "permission")
    assert gate.member == "profiler" and gate.request_id == requests[0].request_id
    answer_permission(human, PERF, "profiler", requests[0].request_id, approve=True)
    play(demo, PERF, "profiler")
    assert "Permission granted; running it now." in said_by(demo, PERF, "profiler")


def test_an_assigned_task_brings_a_plan_and_a_rejected_plan_comes_back_revised(demo: Path, human: Workspace):
    assign_task(human, PERF, "bench-runner", "2", "Benchmark the rebuilt search index", "p50/p99 and recall")
    play(demo, PERF, "bench-runner")
    requests = kinds(inbox(demo, PERF, "team-lead"), "plan_approval_request", "bench-runner")
    assert len(requests) == 1 and requests[0].requestId.endswith("@bench-runner@perf-audit")
    assert "# Plan" in requests[0].planContent
    answer_plan(human, PERF, "bench-runner", approve=False, feedback="Also measure memory")
    play(demo, PERF, "bench-runner")
    revised = kinds(inbox(demo, PERF, "team-lead"), "plan_approval_request", "bench-runner")
    assert len(revised) == 2 and revised[1].requestId != revised[0].requestId
    assert "Revised after feedback: Also measure memory" in revised[1].planContent
    answer_plan(human, PERF, "bench-runner", approve=True)
    play(demo, PERF, "bench-runner")
    assert "Plan approved; starting with step 1." in said_by(demo, PERF, "bench-runner")


def test_a_created_worker_writes_its_output_and_resumes_when_its_gate_is_decided(demo: Path, human: Workspace):
    """The lead creates indexer (a worker of search-index with no output yet); its first
    turn writes a blocked final.json; the person approves the gate the join opens, the
    decision is sent to indexer, and its next turn writes the completed one."""
    add_member(human, PERF, "indexer", prompt="You are worker indexer of task search-index.")
    log = play(demo, PERF, "indexer")
    blocked = final(demo, "search-index", "indexer")
    assert blocked["status"] == "blocked" and len(blocked["questions"]) == 2
    assert any(line.startswith("working on task search-index as worker indexer") for line in log)
    join_task(human, "search-index")
    gate = next(gate for gate in load_task(human, "search-index").gates if gate.agentInstance == "indexer")
    decide_gate(human, "search-index", gate.id, "approve", "Staging first")
    play(demo, PERF, "indexer")
    assert final(demo, "search-index", "indexer")["status"] == "completed"
    assert f"search-index: gate {gate.id} approved; final.json now says completed." in said_by(demo, PERF, "indexer")


def test_a_rejected_gate_ends_its_worker_failed_and_history_is_not_replayed(demo: Path, human: Workspace):
    assert final(demo, "payment-retry", "db-migrator")["status"] == "blocked"
    decide_gate(human, "payment-retry", "g-db-migrator-1", "reject", "Not before the freeze ends")
    play(demo, CHECKOUT, "db-migrator")
    stopped = final(demo, "payment-retry", "db-migrator")
    assert stopped["status"] == "failed" and "Not before the freeze ends" in stopped["summary"]
    # a report replaces the "Got it" to the message telling it the decision
    assert not [text for text in said_by(demo, CHECKOUT, "db-migrator") if text.startswith("Got it")]
    # the demo's history already holds a decided gate (release-notes): it is not replayed
    play(demo, CHECKOUT, "docs-writer")
    assert final(demo, "release-notes", "docs-writer")["status"] == "completed"


def test_the_same_seed_and_run_say_the_same_things(tmp_path: Path, demo: Path):
    import shutil

    twin = tmp_path / "twin"
    shutil.copytree(demo, twin)
    assert play(demo, "quant", "zhangfei-dev", seed=3) == play(twin, "quant", "zhangfei-dev", seed=3)
    said = [
        [
            (m["from"], m.get("summary"), m["text"] if m.get("summary") else None)
            for m in inbox(root, "quant", "team-lead")
        ]
        for root in (demo, twin)
    ]
    assert said[0] == said[1]
