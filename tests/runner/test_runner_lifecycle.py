"""`teamdeck run` and the members' lifecycle (docs/protocol.md, "Running the agents"): an approved
shutdown stops the run and marks the member offline; `run stop`; the runner's crash and
restart (adopt the live runs, record the end of the others, run nothing twice);
`create_agent` starts the new member."""

from __future__ import annotations

import json
import os
import signal
import sys
import time

from support.runner_world import AGENT, TEAM, alive, wait_for

from teamdeck.protocol.team.teams import add_member, read_team

COMMAND = [sys.executable, str(AGENT), "{team}", "{member}", "{run_id}"]


def test_an_approved_shutdown_stops_the_run_and_marks_the_member_offline(world) -> None:
    w = world(["dev"], grace_s=0.5)
    w.configure({"crew/*": {"runtime": "command", "command": COMMAND, "env": {"AGENT": "linger:60"}}})
    w.start()
    asked = w.cli("shutdown", TEAM, "dev")
    assert asked.returncode == 0, asked.stderr
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 30)[0]
    assert run.outcome == "stopped" and "shutdown" in (run.error or "") and "approved" in (run.error or "")
    assert not alive(run.pid)
    member = wait_for(lambda: (m := read_team(w.ws, TEAM).member("dev")) is not None and not m.isActive and m, 10)
    assert member.isActive is False
    w.send("dev", "are you there?")
    time.sleep(1)
    assert len(w.runs("dev")) == 1  # offline: not woken


def test_run_stop_ends_the_run_and_it_is_not_retried(world) -> None:
    w = world(["dev"], retries=3, grace_s=0.5)
    w.start()
    w.send("dev", "sleep:60")
    live = wait_for(lambda: [r for r in w.runs("dev") if r.live and r.pid], 20)[0]
    stopped = w.cli("run", "stop", TEAM, "dev")
    assert stopped.returncode == 0 and "stopped by the runner" in stopped.stdout, stopped.stdout + stopped.stderr
    run = w.runs("dev")[0]
    assert run.id == live.id and run.outcome == "stopped" and not alive(live.pid)
    time.sleep(1)
    assert len(w.runs("dev")) == 1


def test_run_stop_without_a_runner_stops_the_process_itself(world) -> None:
    w = world(["dev"], grace_s=0.5)
    w.start()
    w.send("dev", "sleep:60")
    live = wait_for(lambda: [r for r in w.runs("dev") if r.live and r.pid], 20)[0]
    w.kill()  # the runner is gone; its run goes on
    assert alive(live.pid)
    stopped = w.cli("run", "stop", TEAM, "dev")
    assert "no runner was running" in stopped.stdout, stopped.stdout + stopped.stderr
    assert not alive(live.pid) and w.runs("dev")[0].outcome == "stopped"


def test_after_a_crash_the_next_runner_adopts_live_runs_and_records_the_end_of_the_others(world) -> None:
    """F10: the runner killed with SIGKILL: its lock goes with it; its runs do not. F25:
    the run whose process died meanwhile is recorded as ended, its exit status unknown."""
    w = world(["dev", "qa"], grace_s=0.5)
    w.start()
    w.send("dev", "sleep:8")
    w.send("qa", "sleep:60")
    runs = wait_for(lambda: len([r for r in w.runs() if r.live and r.pid]) == 2 and w.runs(), 20)
    wait_for(lambda: len(w.agent_log()) == 2, 20)
    w.kill()
    dev, qa = (next(r for r in runs if r.member == name) for name in ("dev", "qa"))
    os.killpg(qa.pid, signal.SIGKILL)  # qa's process dies while no runner watches
    wait_for(lambda: not alive(qa.pid), 10)
    w.start()
    adopted = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 30)[0]
    assert adopted.id == dev.id and adopted.outcome == "unknown" and adopted.exitStatus is None
    gone = wait_for(lambda: [r for r in w.runs("qa") if not r.live], 10)[0]
    assert (gone.state, gone.outcome, gone.exitStatus) == ("ended", "unknown", None)
    log = w.root / "runs" / TEAM / "dev" / dev.id / "events.jsonl"
    wait_for(
        lambda: [json.loads(line)["type"] for line in log.read_text().splitlines()] == ["started", "adopted", "ended"]
    )
    time.sleep(1)
    assert len(w.runs()) == 2 and len(w.agent_log()) == 2  # nothing ran twice
    assert "adopted" in w.output() and "ended while no runner watched" in w.output()


def test_a_member_created_with_a_prompt_is_started(world) -> None:
    """create_agent (MCP) adds a member with its prompt: the runner starts it once."""
    w = world(["dev"])
    w.start()
    add_member(w.ws, TEAM, "crafter", prompt="build the parser")
    run = wait_for(lambda: [r for r in w.runs("crafter") if not r.live], 20)[0]
    assert run.trigger == "created" and run.messages == []
    time.sleep(1)
    assert len(w.runs("crafter")) == 1


def test_the_lead_is_not_run_by_a_wildcard(world) -> None:
    w = world(["dev"])
    w.start()
    w.send("team-lead", "hi lead", sender="dev")
    w.send("dev", "hi dev")
    wait_for(lambda: w.runs("dev"), 20)
    time.sleep(0.5)
    assert w.runs("team-lead") == []


def test_a_retry_answered_while_no_runner_ran_is_run_by_the_next_one(world) -> None:
    w = world(["dev"], retries=0)
    w.configure({"crew/*": {"runtime": "command", "command": COMMAND, "env": {"AGENT": "fail"}}})
    w.start()
    w.send("dev", "do it")
    asked = wait_for(lambda: [d for d in w.decisions() if d["type"] == "asked"], 30)[0]
    w.stop()
    w.configure({"crew/*": {"runtime": "command", "command": COMMAND}})
    assert w.cli("decisions", "decide", asked["decision"], "retry").returncode == 0
    w.start()
    retry = wait_for(lambda: [r for r in w.runs("dev") if r.trigger == "retry" and not r.live], 30)[0]
    assert retry.outcome == "succeeded" and retry.retryOf == asked["run"]
    assert w.agent_log()[-1]["woken_for"] == ["do it"]  # the failed run's message, read by it, carried over
    w.stop()
    w.start()  # the answer is not acted on twice
    time.sleep(1)
    assert len(w.runs("dev")) == 2


def test_a_wake_asked_while_no_runner_ran_is_run_by_the_next_one_once(world) -> None:
    w = world(["dev"])
    assert w.cli("run", "wake", TEAM, "dev").returncode == 0
    w.start()
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 20)[0]
    assert run.trigger == "wake"
    w.stop()
    w.start()
    time.sleep(1)
    assert len(w.runs("dev")) == 1


def test_b22_a_member_name_that_cannot_name_a_file_stops_only_that_member(world) -> None:
    """One roster name outside the allow-list, present at the start and another added
    while the runner runs: those members are not run (said once each), every other is."""
    w = world(["dev"])
    config_file = w.root / "teams" / TEAM / "config.json"

    def add_raw(name: str) -> None:
        config = json.loads(config_file.read_text())
        config["members"].append({**config["members"][-1], "name": name, "agentId": f"{name}@{TEAM}"})
        config_file.write_text(json.dumps(config, indent=2))

    add_raw("bob smith")
    runner = w.start()
    w.send("dev", "first")
    wait_for(lambda: [r for r in w.runs("dev") if not r.live], 20)
    add_raw("zhang-\u98de\x1b[2J")
    w.send("dev", "second")
    wait_for(lambda: len([r for r in w.runs("dev") if not r.live]) == 2, 20)
    assert runner.poll() is None  # still running
    out = w.output()
    assert out.count(f"{TEAM}/bob smith: not run: invalid member name") == 1
    assert f"{TEAM}/zhang-\\u98de\\x1b[2J: not run" in out and "\x1b" not in out
