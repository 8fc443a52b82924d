"""A refresh after a decision updates what it kept (the gate queue, who waits on a gate,
the events timeline; the gate list keeps its rows) instead of working it out from every task
again; what it shows must still equal a snapshot built from scratch."""

from __future__ import annotations

from datetime import UTC, datetime

from support import small_worlds as worlds

from teamdeck.protocol.common.written import recorded
from teamdeck.protocol.coordination.delegation import delegate
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace
from teamdeck.tui.alerts import arrivals
from teamdeck.view.figures.overview import age, age_until, ages_at
from teamdeck.view.refresh.build import build_snapshot, refresh


def _public(snapshot):
    return (snapshot.teams, snapshot.tasks, snapshot.decisions, snapshot.events, snapshot.problems)


def _awaiting(snapshot) -> dict[str, int]:
    return {team.name: team.statuses["awaiting"] for team in snapshot.teams}


def test_refreshes_after_decisions_and_sends_equal_a_fresh_build(ws: Workspace) -> None:
    worlds.team(ws)
    worlds.team(ws, "beta")
    gates = {}
    for task_id, team, member in (("t1", "alpha", "alice"), ("t2", "alpha", "bob"), ("t3", "beta", "alice")):
        create_task(ws, task_id, f"Task {task_id}", team=team)
        worker = delegate(ws, task_id, member).worker.id
        write_final_output(ws, task_id, worker, {"status": "blocked", "summary": "stuck", "questions": ["Which?"]})
        join_task(ws, task_id)
    worlds.blocked_task(ws, "t4", None)
    send_message(ws, "alpha", "alice", "Please start on the lexer", summary="start lexer")
    snapshot = build_snapshot(ws)
    for gate in snapshot.decisions:
        gates[gate.task_id] = gate.gate_id
    assert sorted(gates) == ["t1", "t2", "t3", "t4"]
    assert _awaiting(snapshot) == {"alpha": 2, "beta": 1}
    steps = [
        lambda: decide_gate(ws, "t2", gates["t2"], "approve", note="yes"),
        lambda: send_message(ws, "beta", "alice", "and the docs", summary="docs"),
        lambda: decide_gate(ws, "t1", gates["t1"], "reject", note="no"),
        lambda: decide_gate(ws, "t3", gates["t3"], "approve"),
    ]
    for step in steps:
        written: set = set()
        recorded(step, written)
        snapshot = refresh(snapshot, sorted(written))
        assert _public(snapshot) == _public(build_snapshot(ws))
    assert [gate.task_id for gate in snapshot.decisions] == ["t4"]
    assert _awaiting(snapshot) == {"alpha": 0, "beta": 0}


def test_an_age_holds_until_the_second_it_says_so() -> None:
    """The gate list keeps a row until its age would read otherwise: each age is right
    up to the second ``age_until`` gives, and reads otherwise from that second on."""
    now = datetime(2026, 3, 1, 12, 0, 0, 700_000, tzinfo=UTC)
    stamps = [
        "2026-03-01T12:00:05Z",  # in the future (another clock): 0s
        "2026-03-01T11:59:59.900Z",
        "2026-03-01T11:58:00Z",
        "2026-03-01T09:00:00Z",
        "2026-02-20T12:00:00Z",
        "x",
    ]
    of = ages_at(now)
    assert [of(stamp) for stamp in stamps] == [age(stamp, now) for stamp in stamps]
    assert [of(stamp) for stamp in stamps] == ["0s", "1s", "2m", "3h", "9d", ""]
    for stamp in stamps[:-1]:
        text, until = age_until(now)(stamp)
        last_same = datetime.fromtimestamp(until - 1, UTC)
        assert age(stamp, last_same) == text != age(stamp, datetime.fromtimestamp(until, UTC)), stamp


def test_a_run_that_failed_since_is_news_once_and_only_for_its_task(ws: Workspace) -> None:
    """The alerts compare only the tasks that changed (a decision changes one of 1,000):
    a worker whose final.json now says failed is one alert, then none."""
    worlds.team(ws)
    workers = {}
    for task_id in ("t1", "t2"):
        create_task(ws, task_id, f"Task {task_id}", team="alpha")
        workers[task_id] = delegate(ws, task_id, "alice").worker.id
    before = build_snapshot(ws)
    write_final_output(ws, "t2", workers["t2"], {"status": "failed", "summary": "the build broke"})
    after = refresh(before, [ws.task_dir("t2") / "agents" / workers["t2"] / "artifacts" / "final.json"])
    assert before.task("t1") is after.task("t1")
    assert [alert.key for alert in arrivals(before, after)] == [f"run:t2:{workers['t2']}"]
    send_message(ws, "alpha", "alice", "and the docs", summary="docs")
    later = refresh(after, [ws.inbox("alpha", "alice")])
    assert arrivals(after, later) == []


def test_a_task_problem_comes_and_goes_with_its_file_on_a_refresh(ws: Workspace) -> None:
    """Each task's problems are kept while the task is the same object: the one task
    whose file broke (and then was mended) shows (then drops) its problem, the other
    task's problems stay; mended, as a fresh build says (broken, the task keeps its
    last good view on a refresh, and a fresh build has none: not compared then)."""
    worlds.blocked_task(ws, "t1", None)
    worlds.blocked_task(ws, "t2", None)
    (ws.task_file("t2")).write_text("state: [unclosed\n")
    snapshot = build_snapshot(ws)
    before = [problem.path for problem in snapshot.problems]
    assert "tasks/t2/task.yaml" in before and "tasks/t1/task.yaml" not in before
    mended = ws.task_file("t1").read_bytes()
    ws.task_file("t1").write_text("title: [unclosed\n")
    snapshot = refresh(snapshot, [ws.task_file("t1")])
    assert {"tasks/t1/task.yaml", "tasks/t2/task.yaml"} <= {problem.path for problem in snapshot.problems}
    ws.task_file("t1").write_bytes(mended)
    snapshot = refresh(snapshot, [ws.task_file("t1")])
    assert snapshot.problems == build_snapshot(ws).problems
    assert [problem.path for problem in snapshot.problems] == before
