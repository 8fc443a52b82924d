"""`teamdeck run` and a run whose cost cannot be read (docs/protocol.md, "Running the
agents", Budgets): the run ends as any other, its member is woken again, the problem is
recorded and said naming the run, and a member with a budget is held for a person."""

from __future__ import annotations

import json
import time

from support.runner_world import wait_for

from teamdeck.store.runs import write_run


def _ended(w, member: str, count: int) -> list:
    return wait_for(lambda: (done := [r for r in w.runs(member) if not r.live]) and len(done) >= count and done, 30)


def test_b28_a_nan_cost_ends_the_run_and_the_member_is_woken_again(world) -> None:
    """B28: a result line reporting ``NaN`` used to fail the run's end ("Out of range
    float values"), leaving the member live for good: later messages started nothing."""
    w = world(["dev"])
    w.start()
    w.send("dev", "cost:nan")
    run = _ended(w, "dev", 1)[0]
    assert (run.state, run.outcome, run.costUsd) == ("ended", "succeeded", None)
    assert run.costProblem == "total_cost_usd is NaN, not a finite number"
    wait_for(lambda: f"{run.id} succeeded, cost unknown: total_cost_usd is NaN" in w.output(), 10)
    events = (w.root / "runs" / "crew" / "dev" / run.id / "events.jsonl").read_text().splitlines()
    assert json.loads(events[-1])["costProblem"] == "total_cost_usd is NaN, not a finite number"
    w.send("dev", "cost:0.1")  # no budget: nothing holds it
    assert _ended(w, "dev", 2)[1].costUsd == 0.1
    assert "Task exception was never retrieved" not in w.output()


def test_b28_an_unreadable_cost_holds_a_budgeted_member_until_a_person_raises(world) -> None:
    """B28: a run that may have spent anything is not free: the member with a budget is
    held at once (far below its budget), the decision names the run and what was wrong,
    and ``raise`` lets the next run start."""
    w = world(["dev", "qa"])
    w.configure({"crew/dev": {"budget_usd": 100}})
    w.start()
    w.send("dev", "cost:-1")
    run = _ended(w, "dev", 1)[0]
    assert run.costUsd is None and run.costProblem is not None and run.costProblem.startswith("total_cost_usd is -1")
    w.send("dev", "cost:0.1")
    asked = wait_for(lambda: [d for d in w.decisions() if d["type"] == "asked"], 20)[0]
    assert asked["kind"] == "run-budget" and asked["run"] == run.id
    assert asked["title"].startswith(
        f"dev: the cost of run {run.id} could not be read (total_cost_usd is -1.0, below 0"
    )
    time.sleep(0.5)
    assert len(w.runs("dev")) == 1
    w.send("qa", "cost:inf")  # a member without a budget is not held
    assert _ended(w, "qa", 1)[0].costProblem == "total_cost_usd is Infinity, not a finite number"
    raised = w.cli("decisions", "decide", asked["decision"], "raise", "--note", "5")
    assert raised.returncode == 0, raised.stderr
    assert _ended(w, "dev", 2)[1].costUsd == 0.1


def test_b28_after_a_restart_a_recorded_nan_cost_still_holds_the_member(world) -> None:
    """B28: a run.yaml holding ``costUsd: .nan`` (an older runner wrote it) is read with
    its cost unknown, not as $0: the member's next wake raises the budget decision
    instead of running past its budget."""
    w = world(["dev"])
    w.configure({"crew/dev": {"budget_usd": 1}})
    w.start()
    w.send("dev", "cost:0.2")
    run = _ended(w, "dev", 1)[0]
    w.stop()
    text = (w.root / "runs" / "crew" / "dev" / run.id / "run.yaml").read_text()
    (w.root / "runs" / "crew" / "dev" / run.id / "run.yaml").write_text(text.replace("costUsd: 0.2", "costUsd: .nan"))
    reread = w.runs("dev")[0]
    assert (reread.costUsd, reread.costProblem) == (None, "run.yaml: costUsd is NaN, not a finite number")
    write_run(w.ws, reread)  # written back, it keeps the problem and no number
    assert (
        "costProblem: 'run.yaml: costUsd is NaN" in (w.root / "runs" / "crew" / "dev" / run.id / "run.yaml").read_text()
    )
    w.start()
    w.send("dev", "cost:0.2")
    asked = wait_for(lambda: [d for d in w.decisions() if d["type"] == "asked"], 20)[0]
    assert asked["run"] == run.id and "could not be read (run.yaml: costUsd is NaN" in asked["title"]
    time.sleep(0.5)
    assert len(w.runs("dev")) == 1
