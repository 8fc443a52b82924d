"""`teamdeck run`'s limits (docs/protocol.md, "Running the agents"): concurrency in the workspace and
per team with arrival order, the timeout (SIGTERM, grace, SIGKILL to the whole process
group), retries with backoff then the give-up decision, budgets."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from support.runner_world import AGENT, alive, wait_for

COMMAND = [sys.executable, str(AGENT), "{team}", "{member}", "{run_id}"]


def _overlap(runs) -> int:
    """The most runs that were going at one moment."""
    moments = sorted(
        [(run.startedAt, 1) for run in runs] + [(run.endedAt, -1) for run in runs], key=lambda m: (m[0], m[1])
    )
    most = going = 0
    for _at, step in moments:
        going += step
        most = max(most, going)
    return most


def test_global_concurrency_queues_wakes_in_arrival_order(world) -> None:
    members = [f"m{n}" for n in range(6)]
    w = world(members, max_concurrent=2)
    for member in members:  # before the runner: they arrive in this order at its first look
        w.send(member, "sleep:1")
    w.start()
    wait_for(lambda: len(w.runs()) == 6 and not any(r.live for r in w.runs()), 60)
    runs = w.runs()
    assert _overlap(runs) == 2
    by_start = [run.member for run in sorted(runs, key=lambda run: run.startedAt or "")]
    assert by_start[:2] == ["m0", "m1"] or set(by_start[:2]) == {"m0", "m1"}
    assert all(run.queuedAt is not None and run.queuedAt <= (run.startedAt or "") for run in runs)


def test_team_concurrency_limits_one_team_without_holding_up_another(world) -> None:
    w = world(["a1", "a2", "a3"], agents={"other/*": {"runtime": "command", "command": COMMAND}}, max_concurrent=8)
    w.configure({"crew/*": {"runtime": "command", "command": COMMAND, "max_concurrent": 1}}, max_concurrent=8)
    for member in ("a1", "a2", "a3"):
        w.send(member, "sleep:0.5")
    w.start()
    wait_for(lambda: len(w.runs()) == 3 and not any(r.live for r in w.runs()), 60)
    assert _overlap(w.runs()) == 1


def test_a_run_past_its_timeout_is_killed_with_its_process_group(world) -> None:
    """SIGTERM is ignored by the stubborn agent: after grace_s it is SIGKILLed, and the
    child it left in its group goes too."""
    w = world(["dev"], timeout_s=1.5, grace_s=0.5)
    w.configure({"crew/*": {"runtime": "command", "command": COMMAND, "env": {"AGENT": "stubborn,child,sleep:60"}}})
    w.start()
    w.send("dev", "go")
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 30)[0]
    assert run.outcome == "timeout" and run.exitStatus == -9  # SIGKILL: SIGTERM was ignored
    assert not alive(run.pid)
    events = w.cli("runs", "show", run.id, "--json")
    types = [event["type"] for event in __import__("json").loads(events.stdout)["events"]]
    assert types[:4] == ["started", "timeout", "stop-requested", "ended"]
    assert group_members(run.pid) == []  # the child `sleep 300` of its group is gone too (zombies aside)


def test_failed_runs_are_retried_with_backoff_then_a_give_up_decision(world) -> None:
    w = world(["dev"], retries=2, backoff_s=0.3)
    w.configure(
        {"crew/*": {"runtime": "command", "command": COMMAND, "env": {"AGENT": "fail"}}}, retries=2, backoff_s=0.3
    )
    w.start()
    w.send("dev", "do it")
    asked = wait_for(lambda: [d for d in w.decisions() if d["type"] == "asked"], 30)[0]
    runs = w.runs("dev")
    assert [run.attempt for run in runs] == [1, 2, 3] and all(run.outcome == "failed" for run in runs)
    assert [run.retryOf for run in runs] == [None, runs[0].id, runs[1].id]
    # each attempt reads its message: a retry gets back what its failed attempt read (F22)
    assert [(e["texts"], e["woken_for"]) for e in w.agent_log()] == [(["do it"], ["do it"])] * 3
    gaps = [
        (time_of(later.createdAt) - time_of(earlier.endedAt)) for earlier, later in zip(runs, runs[1:], strict=False)
    ]
    assert gaps[0] >= 0.25 and gaps[1] >= 0.55  # 0.3 s, then 0.6 s
    assert asked["kind"] == "run-failed" and asked["title"] == "dev failed 3 times: retry / give up"
    assert asked["reason"] == "exit status 1" and "--- stderr.log\nfailing as told" in asked["tail"]
    listed = w.cli("decisions", "list").stdout
    assert "dev failed 3 times: retry / give up" in listed and "[retry|give_up]" in listed
    time.sleep(1)
    assert len(w.runs("dev")) == 3  # held: the decision waits, nothing more runs
    # retry: the member runs again, its messages carried and unread again for it
    w.configure({"crew/*": {"runtime": "command", "command": COMMAND}}, retries=2, backoff_s=0.3)
    time.sleep(0.5)
    done = w.cli("decisions", "decide", asked["decision"], "retry")
    assert done.returncode == 0, done.stderr
    wait_for(lambda: len(w.runs("dev")) == 4 and not w.runs("dev")[-1].live, 30)
    last = w.runs("dev")[-1]
    assert last.trigger == "retry" and last.outcome == "succeeded" and last.retryOf == runs[-1].id


def test_give_up_closes_the_decision_and_a_new_message_wakes_the_member(world) -> None:
    w = world(["dev"], retries=0)
    w.configure({"crew/*": {"runtime": "command", "command": COMMAND, "env": {"AGENT": "noread,fail"}}}, retries=0)
    w.start()
    w.send("dev", "do it")
    asked = wait_for(lambda: [d for d in w.decisions() if d["type"] == "asked"], 30)[0]
    assert asked["title"] == "dev failed 1 time: retry / give up"
    assert w.cli("decisions", "decide", asked["decision"], "give-up").returncode == 0
    time.sleep(1)
    assert len(w.runs("dev")) == 1  # its message is not run again
    w.send("dev", "something new")
    wait_for(lambda: len(w.runs("dev")) == 2, 30)


def test_past_its_budget_a_member_is_not_woken_and_a_decision_waits(world) -> None:
    w = world(["dev", "qa"])
    w.configure({"crew/*": {"runtime": "command", "command": COMMAND}, "crew/dev": {"budget_usd": 1}})
    w.start()
    w.send("dev", "cost:0.6")
    wait_for(lambda: [r for r in w.runs("dev") if not r.live], 20)
    w.send("dev", "cost:0.6")
    wait_for(lambda: len([r for r in w.runs("dev") if not r.live]) == 2, 20)
    w.send("dev", "cost:0.6")  # 1.2 spent of 1: this one waits
    asked = wait_for(lambda: [d for d in w.decisions() if d["type"] == "asked"], 20)[0]
    assert (
        asked["kind"] == "run-budget"
        and asked["title"] == "dev spent $1.20 of its $1.00 budget: raise the budget / stop"
    )
    time.sleep(0.5)
    assert len(w.runs("dev")) == 2
    w.send("qa", "cost:5")  # another member without a budget is not held
    wait_for(lambda: w.runs("qa"), 20)
    raised = w.cli("decisions", "decide", asked["decision"], "raise", "--note", "2")
    assert raised.returncode == 0 and "dev: budget raised by $2" in raised.stdout
    wait_for(lambda: len(w.runs("dev")) == 3, 20)


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def time_of(stamp: str | None) -> float:
    from teamdeck.clock import parse_iso

    assert stamp is not None
    return parse_iso(stamp).timestamp()
