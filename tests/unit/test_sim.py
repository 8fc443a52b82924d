"""The simulated agents (teamdeck.sim.simulation) on a copy of the demo workspace.

Most tests drive the simulation's clockwork directly (``sim.advance(seconds)``), so
they are fast and deterministic; the live tests run it on a thread at high speed and
wait for files with a deadline.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest

from teamdeck.model.claude import decode_text
from teamdeck.protocol.gates import decide_gate
from teamdeck.protocol.messaging.handshakes import answer_plan, request_shutdown
from teamdeck.protocol.messaging.sending import send_message
from teamdeck.protocol.permissions import answer_permission
from teamdeck.protocol.shutdown_resend import resend_shutdown
from teamdeck.protocol.taskfile import load_task
from teamdeck.protocol.teamlog import read_log
from teamdeck.protocol.teams import read_team
from teamdeck.sim.clock import DEMO_NOW
from teamdeck.sim.simulation import (
    FIRST_OUTPUT_AT,
    OUTPUT_EVERY,
    PERMISSION_AT,
    PLAN_AT,
    Simulation,
    pending_workers,
)
from teamdeck.store.workspace import Workspace
from teamdeck.view.build import build_snapshot

CHECKOUT = "checkout-revamp"
PERF = "perf-audit"


def ticking_clock() -> Callable:
    """A deterministic clock: one millisecond later at every call (ids stay distinct)."""
    calls = {"n": 0}

    def clock():
        calls["n"] += 1
        return DEMO_NOW + timedelta(milliseconds=calls["n"])

    return clock


@pytest.fixture
def human(demo: Path) -> Workspace:
    """The person at the keyboard, acting on the demo copy."""
    return Workspace.at(demo, clock=ticking_clock(), actor="human:tester")


def simulation(demo: Path, seed: int = 7, speed: float = 1.0) -> Simulation:
    return Simulation(Workspace.at(demo, clock=ticking_clock(), actor="agent:sim"), seed=seed, speed=speed)


def inbox(root: Path, team: str, member: str) -> list[dict]:
    return json.loads((root / "teams" / team / "inboxes" / f"{member}.json").read_text())


def kinds(messages: list[dict], kind: str, sender: str | None = None) -> list:
    """The decoded messages of ``kind`` (optionally from ``sender``)."""
    return [
        decoded
        for message in messages
        if (decoded := decode_text(message["text"])).KIND == kind and sender in (None, message["from"])
    ]


def final(root: Path, task: str, agent: str) -> dict:
    return json.loads((root / "tasks" / task / "agents" / agent / "artifacts" / "final.json").read_text())


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met before the deadline")
        time.sleep(0.01)


# --- what the simulation writes --------------------------------------------------


def test_pending_workers_of_working_tasks_write_outputs_first_blocked_then_completed(demo: Path):
    sim = simulation(demo)
    assert [(worker.task_id, worker.agent_id) for worker in pending_workers(sim.ws)] == [
        ("search-index", "indexer"),
        ("search-index", "ranker"),
    ]
    sim.advance(FIRST_OUTPUT_AT + OUTPUT_EVERY)
    blocked = final(demo, "search-index", "indexer")
    assert blocked["status"] == "blocked"
    assert len(blocked["questions"]) == 2 and all(question.endswith("?") for question in blocked["questions"])
    assert final(demo, "search-index", "ranker")["status"] == "completed"
    assert sim.scheduler.errors == []


def test_the_stuck_shutdown_stays_stuck_until_it_is_resent_then_is_approved(demo: Path, human: Workspace):
    """The demo's stuck shutdown (test-writer) was answered ~3 s after
    launch, before anyone could try resend. It stays unanswered (a stuck shutdown in the
    queue) however long the demo runs; a resent request is approved and the member goes
    offline."""
    request = kinds(inbox(demo, CHECKOUT, "test-writer"), "shutdown_request")[-1]
    sim = simulation(demo)
    sim.advance(300.0)
    assert not kinds(inbox(demo, CHECKOUT, "team-lead"), "shutdown_approved", "test-writer")
    assert read_team(sim.ws, CHECKOUT).member("test-writer").isActive
    stuck = f"shutdown:{CHECKOUT}:test-writer:{request.requestId}"
    assert build_snapshot(human).gate(stuck) is not None
    resent = resend_shutdown(human, CHECKOUT, "test-writer", reason="wrapping up")
    sim.advance(310.0)
    approvals = kinds(inbox(demo, CHECKOUT, "team-lead"), "shutdown_approved", "test-writer")
    assert [approval.requestId for approval in approvals] == [resent.sent.request_id]
    assert not read_team(sim.ws, CHECKOUT).member("test-writer").isActive


def test_a_permission_request_arrives_and_its_answer_is_acted_on(demo: Path, human: Workspace):
    """The demo showed no permission request."""
    sim = simulation(demo)
    sim.advance(PERMISSION_AT)
    requests = kinds(inbox(demo, PERF, "team-lead"), "permission_request", "profiler")
    assert len(requests) == 1 and requests[0].tool_name == "Bash"
    gate = next(gate for gate in build_snapshot(human).gates if gate.kind == "permission")
    assert gate.member == "profiler" and gate.request_id == requests[0].request_id
    answer_permission(human, PERF, "profiler", requests[0].request_id, approve=True)
    sim.advance(PERMISSION_AT + 10.0)
    said = [message["text"] for message in inbox(demo, PERF, "team-lead") if message["from"] == "profiler"]
    assert "Permission granted; running it now." in said


def test_a_turn_reads_the_inbox_answers_and_ends_with_an_idle_notification(demo: Path):
    before = len(inbox(demo, CHECKOUT, "team-lead"))
    assert any(not message["read"] for message in inbox(demo, CHECKOUT, "ui-dev"))
    sim = simulation(demo)
    sim.advance(5.0)
    assert all(message["read"] for message in inbox(demo, CHECKOUT, "ui-dev"))
    new = [message for message in inbox(demo, CHECKOUT, "team-lead")[before:] if message["from"] == "ui-dev"]
    assert [decode_text(message["text"]).KIND for message in new] == ["plain", "idle_notification"]
    assert new[0]["summary"] == "Acknowledged" and new[0]["color"] == "green" and new[0]["read"] is False
    assert kinds(new, "idle_notification")[0].idleReason == "available"


def test_a_plan_approval_request_is_sent_and_a_rejected_plan_comes_back_revised(demo: Path, human: Workspace):
    sim = simulation(demo)
    sim.advance(PLAN_AT)
    requests = kinds(inbox(demo, PERF, "team-lead"), "plan_approval_request", "bench-runner")
    assert len(requests) == 1
    assert requests[0].requestId.startswith("plan_approval-") and requests[0].requestId.endswith(
        "@bench-runner@perf-audit"
    )
    assert "# Plan" in requests[0].planContent
    answer_plan(human, PERF, "bench-runner", approve=False, feedback="Also measure memory")
    sim.advance(PLAN_AT + 10.0)
    revised = kinds(inbox(demo, PERF, "team-lead"), "plan_approval_request", "bench-runner")
    assert len(revised) == 2
    assert revised[1].requestId != revised[0].requestId
    assert "Revised after feedback: Also measure memory" in revised[1].planContent
    answer_plan(human, PERF, "bench-runner", approve=True)
    sim.advance(PLAN_AT + 20.0)
    said = [message["text"] for message in inbox(demo, PERF, "team-lead") if message["from"] == "bench-runner"]
    assert "Plan approved; starting with step 1." in said


def test_personas_approve_reject_ignore_or_stay_silent_when_asked_to_shut_down(demo: Path, human: Workspace):
    asked = {
        name: request_shutdown(human, team, name, reason="wrapping up").request_id
        for team, name in ((CHECKOUT, "ui-dev"), (CHECKOUT, "api-dev"), (PERF, "log-miner"), (PERF, "profiler"))
    }
    sim = simulation(demo)
    sim.advance(10.0)
    checkout_lead, perf_lead = inbox(demo, CHECKOUT, "team-lead"), inbox(demo, PERF, "team-lead")
    rejected = kinds(checkout_lead, "shutdown_rejected", "ui-dev")
    assert [(reply.requestId, bool(reply.reason)) for reply in rejected] == [(asked["ui-dev"], True)]
    assert read_team(human, CHECKOUT).member("ui-dev").isActive
    # api-dev consumed the request (it is read) but never answers: "not consumed".
    assert not [
        reply
        for reply in checkout_lead
        if reply["from"] == "api-dev" and decode_text(reply["text"]).KIND.startswith("shutdown_")
    ]
    assert all(message["read"] for message in inbox(demo, CHECKOUT, "api-dev"))
    # log-miner crashed: the request stays unread and nothing comes back.
    assert not inbox(demo, PERF, "log-miner")[-1]["read"]
    assert not [message for message in perf_lead if message["from"] == "log-miner" and not message["read"]]
    # profiler cooperates.
    assert [reply.requestId for reply in kinds(perf_lead, "shutdown_approved", "profiler")] == [asked["profiler"]]
    assert not read_team(human, PERF).member("profiler").isActive


def test_a_decided_gate_sends_its_worker_back_to_work(demo: Path, human: Workspace):
    assert final(demo, "checkout-api", "api-dev")["status"] == "blocked"
    assert final(demo, "payment-retry", "db-migrator")["status"] == "blocked"
    sim = simulation(demo)
    decide_gate(human, "checkout-api", "g-api-dev-1", "approve", "Yes to both")
    decide_gate(human, "payment-retry", "g-db-migrator-1", "reject", "Not before the freeze ends")
    sim.advance(10.0)
    assert final(demo, "checkout-api", "api-dev")["status"] == "completed"
    stopped = final(demo, "payment-retry", "db-migrator")
    assert stopped["status"] == "failed" and "Not before the freeze ends" in stopped["summary"]
    # the demo's history already holds a decided gate (release-notes): it is not replayed
    assert final(demo, "release-notes", "docs-writer")["status"] == "completed"
    assert load_task(human, "release-notes").state == "done"


# --- determinism, live running, concurrency ---------------------------------------


def test_the_same_seed_does_the_same_things(tmp_path: Path, demo: Path):
    import shutil

    twin = tmp_path / "twin"
    shutil.copytree(demo, twin)
    first, second = simulation(demo, seed=3), simulation(twin, seed=3)
    first.advance(90.0)
    second.advance(90.0)
    assert first.scheduler.history == second.scheduler.history
    for team, member in ((CHECKOUT, "team-lead"), (PERF, "team-lead")):
        assert inbox(demo, team, member) == inbox(twin, team, member)
    assert final(demo, "search-index", "indexer") == final(twin, "search-index", "indexer")
    other = simulation(twin, seed=4)
    other.advance(90.0)
    chatter = [happened.at for happened in other.scheduler.history if happened.label == "chatter"]
    assert chatter != [happened.at for happened in first.scheduler.history if happened.label == "chatter"]


def test_live_run_writes_over_time_and_stops_cleanly_on_the_stop_event(demo: Path):
    sim = simulation(demo, speed=50.0)
    stop = threading.Event()
    thread = sim.start(stop)
    indexer = demo / "tasks" / "search-index" / "agents" / "indexer" / "artifacts" / "final.json"
    wait_for(indexer.exists)
    stop.set()
    thread.join(2.0)
    assert not thread.is_alive()
    done = len(sim.scheduler.history)
    time.sleep(0.2)  # nothing may happen after the thread ended
    assert len(sim.scheduler.history) == done
    assert sim.scheduler.errors == []


def test_nothing_is_lost_when_the_lead_writes_while_the_agents_do(demo: Path, human: Workspace):
    """The lead sends 60 messages while the simulated teammates read their inboxes,
    answer and go idle, at high speed: every message either side logged is in its
    recipient's inbox afterwards (all writers use Claude Code's mkdir lock)."""
    sim = simulation(demo, speed=200.0)
    stop = threading.Event()
    thread = sim.start(stop)

    def turns() -> int:
        return sum(1 for happened in list(sim.scheduler.history) if happened.label.startswith("turn"))

    try:
        for burst in range(6):  # each burst goes out while the teammates are answering the last
            seen = turns()
            for n in range(burst * 10, burst * 10 + 10):
                send_message(
                    human, CHECKOUT, ("ui-dev", "api-dev", "db-migrator")[n % 3], f"note {n}", summary=f"note {n}"
                )
            wait_for(lambda: turns() > seen)
    finally:
        wait_for(
            lambda: all(
                message["read"]
                for name in ("ui-dev", "api-dev", "db-migrator")
                for message in inbox(demo, CHECKOUT, name)
            )
        )
        stop.set()
        thread.join(5.0)
    assert sim.scheduler.errors == []
    assert turns() >= 6
    records, problems = read_log(human, CHECKOUT)
    assert problems == []
    sends = [record for record in records if record.to]
    assert sum(1 for record in sends if record.from_ == "team-lead" and record.text.startswith("note ")) == 60
    assert any(record.from_ == "ui-dev" for record in sends)
    for record in sends:
        for recipient in record.to:
            held = inbox(demo, CHECKOUT, recipient)
            assert any(
                message["from"] == record.from_
                and message["timestamp"] == record.timestamp
                and message["text"] == record.text
                for message in held
            ), (record.id, recipient)
