"""The demo's agents run by the runner, as ``teamdeck demo`` runs them: the runner
``teamdeck run`` uses (RunnerHost) on a thread, ``agents:`` written by the demo's setup,
each turn a ``python -m teamdeck.sim.agent`` process. A person's action (a shutdown
request, a gate decision, a resent shutdown) reaches the agent only through a run the
runner starts, and what the agent answers is recorded with that run (F/B: seed 004 §8
handshakes; seed 000 gates)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.runner_world import wait_for

from teamdeck.model.run import RunRecord
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown
from teamdeck.protocol.team.shutdown_resend import resend_shutdown
from teamdeck.protocol.team.teams import read_team
from teamdeck.runner.hosting import RunnerHost
from teamdeck.sim.outputs import output_status
from teamdeck.sim.setup import environment, install_agents
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.runs import member_runs


@pytest.fixture
def running(demo: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Workspace]:
    """The demo copy with the demo's agents, its runner going; stopped afterwards."""
    install_agents(demo)
    for name, value in environment(speed=50.0, seed=0).items():
        monkeypatch.setenv(name, value)
    lines: list[str] = []
    host = RunnerHost(Workspace.at(demo), lines.append, signals=False)
    thread = threading.Thread(target=host.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: any(line.startswith("runner of ") for line in lines), 30)
        yield Workspace.at(demo, actor="human:tester")
    finally:
        host.stop()
        thread.join(60)
    assert not thread.is_alive()


def ended_runs(ws: Workspace, team: str, member: str) -> list[RunRecord]:
    return [run for run in member_runs(ws, team, member).runs if not run.live]


def test_a_shutdown_request_is_approved_in_a_run_and_the_member_goes_offline(running: Workspace):
    request_shutdown(running, "quant", "guanyu-risk", reason="wrapping up")
    wait_for(lambda: not read_team(running, "quant").member("guanyu-risk").isActive, 60)
    (run,) = member_runs(running, "quant", "guanyu-risk").runs
    assert run.argv[1:] == ["-m", "teamdeck.sim.agent"] and [m.kind for m in run.messages] == ["shutdown_request"]
    wait_for(lambda: not member_runs(running, "quant", "guanyu-risk").runs[0].live, 30)


def test_an_approved_gate_wakes_its_worker_whose_run_writes_the_completed_output(running: Workspace):
    assert output_status(running, "payment-retry", "db-migrator") == "blocked"
    decide_gate(running, "payment-retry", "g-db-migrator-1", "approve", "Go ahead on staging")
    wait_for(lambda: output_status(running, "payment-retry", "db-migrator") == "completed", 60)
    runs = wait_for(lambda: ended_runs(running, "checkout-revamp", "db-migrator"), 30)
    assert runs[-1].outcome == "succeeded" and [m.kind for m in runs[-1].messages] == ["plain"]


def test_the_stuck_shutdown_resent_is_approved_in_the_next_run(running: Workspace):
    wait_for(lambda: ended_runs(running, "checkout-revamp", "test-writer"), 60)  # the first request: left unanswered
    assert read_team(running, "checkout-revamp").member("test-writer").isActive
    resend_shutdown(running, "checkout-revamp", "test-writer", reason="really, stop")
    wait_for(lambda: not read_team(running, "checkout-revamp").member("test-writer").isActive, 60)
    assert len(member_runs(running, "checkout-revamp", "test-writer").runs) == 2
