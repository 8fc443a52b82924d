"""F21: what a run's agent leaves running ends with the run (docs/reliability.md F21,
docs/protocol.md "Running the agents"). An agent that starts ``sleep 1002 &``, ``nohup
sleep 1003 &`` (both stay in its process group) and ``setsid sleep 1004 &`` (its own
session: only the run's environment says whose it is) and exits 0 used to leave all three
running after the run ended and after the runner stopped."""

from __future__ import annotations

import json
from pathlib import Path

from support.runner_world import TEAM, alive, wait_for

LEAVES = (
    "sleep 1002 & echo $! >> {workspace}/pids.{run_id}; "
    "nohup sleep 1003 >/dev/null 2>&1 & echo $! >> {workspace}/pids.{run_id}; "
    "setsid sleep 1004 & echo $! >> {workspace}/pids.{run_id}; "
)
"""A shell agent's three children, their pids written to ``pids.<run id>`` in the workspace."""


def _agent(then: str) -> dict:
    return {f"{TEAM}/*": {"runtime": "command", "command": ["sh", "-c", LEAVES + then]}}


def _children(root: Path, run_id: str) -> list[int]:
    path = root / f"pids.{run_id}"
    pids = [int(line) for line in path.read_text().split()] if path.exists() else []
    return pids if len(pids) == 3 else []


def _running(world, then: str):
    """The runner started, dev messaged, and its run live with its children started
    (the agent starts them, then ``then``): the world, the run and the children's pids."""
    w = world(["dev"], grace_s=0.5)
    w.configure(_agent(then))
    w.start()
    w.send("dev", "go")
    live = wait_for(lambda: [r for r in w.runs("dev") if r.live and r.pid], 30)[0]
    return w, live, wait_for(lambda: _children(w.root, live.id), 30)


def test_f21_the_children_of_a_run_that_exited_end_with_it(world) -> None:
    """The run ends (exit 0) while the runner goes on: its three children are gone by
    the time the run is recorded as ended, and the end says how many were left."""
    w = world(["dev"], grace_s=0.5)
    w.configure(_agent("exit 0"))
    w.start()
    w.send("dev", "go")
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 30)[0]
    children = _children(w.root, run.id)
    assert run.outcome == "succeeded" and len(children) == 3
    assert [pid for pid in children if alive(pid)] == []
    assert w.runner is not None and w.runner.poll() is None  # the runner still runs
    shown = w.cli("runs", "show", run.id, "--json")
    events = json.loads(shown.stdout)["events"]
    ended = [event for event in events if event["type"] == "leftovers-ended"]
    assert ended and ended[0]["count"] == 3, events


def test_f21_the_children_of_a_run_the_runner_stopped_end_with_the_runner(world) -> None:
    """The runner ends (SIGTERM) while the agent sleeps: the run is stopped and nothing
    of it runs once the runner has exited."""
    w, live, children = _running(world, "sleep 60")
    assert all(alive(pid) for pid in children)
    assert w.stop() == 0
    assert w.runs("dev")[0].outcome == "stopped"
    assert [pid for pid in [live.pid or 0, *children] if alive(pid)] == []


def test_f21_the_children_of_a_run_stopped_without_a_runner_end_with_it(world) -> None:
    """`teamdeck run stop` with no runner alive stops the recorded run itself: its
    children go with it."""
    w, live, children = _running(world, "sleep 60")
    w.kill()  # the runner is gone; its run goes on
    stopped = w.cli("run", "stop", TEAM, "dev")
    assert "no runner was running" in stopped.stdout, stopped.stdout + stopped.stderr
    assert [pid for pid in [live.pid or 0, *children] if alive(pid)] == []


def test_f21_the_children_of_a_run_that_ended_while_no_runner_ran_end_with_the_next_runner(world) -> None:
    """The runner is killed, then the agent exits while no runner watches: its children
    live on until the next runner ends them and records the run's end (F25)."""
    w, live, children = _running(world, "sleep 2")
    w.kill()
    wait_for(lambda: not alive(live.pid or 0), 30)
    assert all(alive(pid) for pid in children)  # nobody ends them while no runner runs
    w.start()
    assert wait_for(lambda: w.runs("dev")[0].state == "ended", 30)
    assert not any(alive(pid) for pid in children)  # ended before the run was recorded as ended
