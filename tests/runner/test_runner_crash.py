"""F25: a runner crash drops no work (docs/reliability.md F25, docs/protocol.md "Running
the agents"). The runner is killed (SIGKILL, at a named crash point or at a random
moment) between recording a run and starting its agent, while recording the start, or
while a failed run's retry waits out its backoff; the next runner must run the message
once, or ask the run-failed decision, never leave it undone and unsaid. Before, such a
run was recorded as lost and nothing more happened; a retry waiting in the backoff was
forgotten; a run whose agent ended while no runner watched was lost with the cost and
result its output still held; a timed-out run said no error."""

from __future__ import annotations

import random
import signal
import time
from datetime import timedelta

import pytest
from support.runner_world import World, alive, wait_for

from teamdeck.clock import parse_iso
from teamdeck.view.readers.runs import run_events

MESSAGE = "do it"

BEFORE_THE_AGENT = [
    "run.after_replace@1",  # messages.json written, run.yaml not yet
    "run.after_replace@2",  # the run recorded
    "inbox.after_read@1",  # its messages given back before its agent starts
    "run.before_replace@3",  # the agent spawned, its pid not recorded yet
    "run.after_replace@3",  # its pid recorded, the started event not yet
]
"""The crash points a first run passes from its record to its agent's start (every
``run.*`` write of the runner is one pass: messages.json, run.yaml, run.yaml with the
pid). Of the stages before a replace only the last is listed: the earlier ones leave
the same files (the random trials below draw them too)."""


def _crash(w: World, point: str) -> None:
    """Start a runner that dies at ``point``, then wait until it did."""
    w.start(env={"TEAMDECK_CRASH_AT": point})
    w.send("dev", MESSAGE)
    assert w.died() == -signal.SIGKILL, w.output()


def _ran(w: World) -> list[dict]:
    """The agent runs that were given the message."""
    return [entry for entry in w.agent_log() if MESSAGE in entry["woken_for"]]


def _settled(w: World) -> None:
    """Wait until the message was run and nothing is going, then a while more (a
    second run would show)."""
    wait_for(lambda: _ran(w) and w.runs() and not any(run.live for run in w.runs()), 15)
    time.sleep(0.5)


def _asked(w: World) -> list[dict]:
    return [d for d in w.decisions() if d["type"] == "asked"]


@pytest.mark.parametrize("point", BEFORE_THE_AGENT)
def test_f25_a_runner_killed_before_its_agent_started_runs_the_message_once(world, point: str) -> None:
    """Killed at each point from the run's record to its agent's start: the next runner
    runs the message exactly once (a run lost before its agent started is retried; one
    whose agent started is adopted, or its end read back), asks nothing, and leaves no
    run recorded as running."""
    w = world(["dev"], retries=1, backoff_s=0.2)
    _crash(w, point)
    w.start()
    _settled(w)
    runs = w.runs("dev")
    assert len(_ran(w)) == 1, [(r.id, r.state, r.outcome, r.error) for r in runs]
    assert _asked(w) == []
    assert runs[-1].outcome in ("succeeded", "unknown"), [(r.outcome, r.error) for r in runs]
    for lost in (run for run in runs if run.outcome == "lost"):
        assert "before its agent started" in (lost.error or "")
        assert any(run.retryOf == lost.id and run.trigger == "retry" for run in runs)


def test_f25_a_run_lost_before_its_agent_started_with_no_retry_left_is_a_decision(world) -> None:
    """With ``retries: 0`` a run lost before its agent started asks the run-failed
    decision at once, naming the lost run and the message it keeps."""
    w = world(["dev"], retries=0)
    _crash(w, "run.after_replace@2")
    w.start()
    asked = wait_for(lambda: _asked(w), 15)[0]
    lost = w.runs("dev")[0]
    assert lost.outcome == "lost" and asked["kind"] == "run-failed" and asked["run"] == lost.id
    assert [m["key"] for m in asked["messages"]] == [lost.messages[0].key]
    assert w.agent_log() == []


@pytest.mark.parametrize("point", ["run.after_replace@6", "inbox.after_replace@1"])
def test_f25_a_retry_lost_before_its_agent_started_counts_as_an_attempt(world, point: str) -> None:
    """The first run fails; the runner dies recording its retry (run.yaml written, or
    the messages its failed attempt read given back): the next runner counts the lost
    retry as the last attempt and asks the decision, which keeps the message."""
    w = world(["dev"], retries=1, backoff_s=0.2)
    w.start(env={"TEAMDECK_CRASH_AT": point})
    w.send("dev", "fail")
    assert w.died() == -signal.SIGKILL, w.output()
    w.start()
    asked = wait_for(lambda: _asked(w), 15)[0]
    runs = w.runs("dev")
    assert [(run.attempt, run.outcome) for run in runs] == [(1, "failed"), (2, "lost")]
    assert asked["run"] == runs[1].id and asked["messages"][0]["key"] == runs[0].messages[0].key
    assert len(w.agent_log()) == 1


def test_f25_a_runner_killed_in_a_retrys_backoff_runs_the_retry_after_a_restart(world) -> None:
    """The runner dies while a failed run's retry waits out its backoff: the next runner
    starts the retry when the backoff (counted from the failed run's end) is over, and
    asks the decision once it failed too."""
    w = world(["dev"], retries=1, backoff_s=2)
    w.start()
    w.send("dev", "fail")
    wait_for(lambda: "retry 1 of 1 for crew/dev" in w.output(), 30)
    w.kill()
    w.start()
    asked = wait_for(lambda: _asked(w), 15)[0]
    first, retry = w.runs("dev")
    assert (first.outcome, retry.outcome, retry.trigger, retry.retryOf) == ("failed", "failed", "retry", first.id)
    assert asked["run"] == retry.id and len(w.agent_log()) == 2
    waited = parse_iso(retry.createdAt) - parse_iso(first.endedAt or "")
    assert waited >= timedelta(seconds=1.9)  # the backoff, though the runner was restarted meanwhile


def test_f25_a_stop_asked_in_the_backoff_while_no_runner_ran_drops_the_retry(world) -> None:
    """``run stop`` while the runner is down and a retry waited: the next runner does not
    start it (the stop is about that member's failed run and its retries)."""
    w = world(["dev"], retries=1, backoff_s=0.5)
    w.start()
    w.send("dev", "fail")
    wait_for(lambda: "retry 1 of 1 for crew/dev" in w.output(), 30)
    w.kill()
    assert w.cli("run", "stop", "crew", "dev").returncode == 0
    w.start()
    time.sleep(1.5)
    assert len(w.runs("dev")) == 1 and _asked(w) == []


def test_f25_a_run_that_ended_while_no_runner_ran_is_recorded_with_its_output(world) -> None:
    """The agent prints its result line and exits while no runner watches: the next
    runner records the run as ended, its exit status unknown, with the cost and result
    its output holds (counted as any run's) and when its output last changed as its end."""
    w = world(["dev"])
    w.start()
    w.send("dev", "sleep:1,cost:0.25")
    live = wait_for(lambda: [r for r in w.runs("dev") if r.live and r.pid], 30)[0]
    w.kill()
    wait_for(lambda: not alive(live.pid or 0), 30)
    time.sleep(0.5)
    restarted = w.ws.clock()
    w.start()
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 15)[0]
    assert (run.state, run.outcome, run.exitStatus) == ("ended", "unknown", None)
    assert run.costUsd == 0.25 and run.result == "done"
    assert parse_iso(run.startedAt or "") < parse_iso(run.endedAt or "") < restarted
    # run.yaml is saved before its end events are appended: wait for them as for the record
    wait_for(lambda: [event["type"] for event in run_events(w.ws, run)][-2:] == ["gone", "ended"], 15)
    assert _asked(w) == []


def test_f25_a_run_past_its_timeout_says_so(world) -> None:
    """A timed-out run's error says it timed out and after how long (it was null)."""
    w = world(["dev"], timeout_s=1, grace_s=0.5)
    w.start()
    w.send("dev", "sleep:30")
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 15)[0]
    assert run.outcome == "timeout" and run.error == "timed out after 1 s"


STAGES = ("after_tmp_write", "after_tmp_fsync", "before_replace", "after_replace")


@pytest.mark.parametrize("trial", range(3))
def test_f25_a_runner_killed_at_a_random_crash_point_runs_the_message_once(world, trial: int) -> None:
    """The runner dies at a crash point drawn at random (seeded: each trial is the same
    every time) from every pass of a run's life: each stage of its four ``run.*``
    writes (messages.json, run.yaml, its pid, its end) and the give-back of its
    messages. The next runner runs the message exactly once and asks nothing."""
    draw = random.Random(f"F25-{trial}")
    point = draw.choice([f"run.{stage}@{n}" for stage in STAGES for n in range(1, 5)] + ["inbox.after_read@1"])
    w = world(["dev"], retries=1, backoff_s=0.2)
    _crash(w, point)
    w.start()
    _settled(w)
    assert len(_ran(w)) == 1, (point, [(r.id, r.state, r.outcome, r.error) for r in w.runs()])
    assert _asked(w) == [], point


@pytest.mark.parametrize("trial", range(2))
def test_f25_a_runner_killed_at_a_random_moment_runs_the_message_once(world, trial: int) -> None:
    """The runner is killed at a random moment of a short run's life (seeded: each trial
    is the same every time): the next runner runs the message exactly once and asks
    nothing."""
    w = world(["dev"], retries=1, backoff_s=0.2)
    w.start()
    w.send("dev", f"sleep:0.3,{MESSAGE}")
    time.sleep(random.Random(25 * 100 + trial).uniform(0.0, 1.5))
    w.kill()
    w.start()
    wait_for(lambda: [e for e in w.agent_log() if e["texts"]] and not any(run.live for run in w.runs()), 15)
    time.sleep(0.5)
    assert len(w.agent_log()) == 1, [(r.id, r.state, r.outcome, r.error) for r in w.runs()]
    assert _asked(w) == [] and not any(run.live for run in w.runs())
