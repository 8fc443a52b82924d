"""The automatic step's parts one by one: verification when a task
reaches review and the retry policy (seed 003), the stall decision's three answers, a
decision made moot by an answer, autowork switched off, and the CLI fronts
(``teamdeck supervise``, ``teamdeck status`` saying why a member is stalled).

Time moves by the workspace's clock, so nothing sleeps; guardians run in threads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from teamdeck.decisions.registry import answer_decision, find_decision
from teamdeck.errors import Refused
from teamdeck.protocol.autowork.step import supervise
from teamdeck.protocol.autowork.steps import ACTOR
from teamdeck.protocol.coordination.delegation import delegate, report
from teamdeck.protocol.guardians.verification import configure_guardian
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.taskfile import load_task, read_events
from teamdeck.protocol.team.messaging.reading import list_inbox
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot

MINUTE = 60.0


class Clock:
    """Starts at ``start`` (default: now, so the files' own times are in the past); the test moves it."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def _world(root: Path, settings: str = "", start: datetime | None = None) -> tuple[Workspace, Clock]:
    clock = Clock(start)
    root.mkdir(exist_ok=True)
    ws = Workspace.at(root, clock=clock, actor="human:tester")
    create_team(ws, "crew")
    for member in ("alice", "bob", "carol"):
        add_member(ws, "crew", member)
    (root / ".teamdeck.yaml").write_text(settings or "autowork:\n  stallAfterSeconds: 600\n  nudges: 1\n  backoff: 2\n")
    create_task(ws, "t1", "Build the parser", team="crew", state="approved")
    delegate(ws, "t1", "bob")
    return ws, clock


def _texts(ws: Workspace, member: str) -> list[str]:
    return [entry.message.text for entry in list_inbox(ws, "crew", member) if entry.message is not None]


def test_on_review_verifies_when_every_worker_reported_and_fail_is_retried_n_times(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path / "ws")
    configure_guardian(ws, "t1", code="command", command="test -f ok", cwd=".", on_review=True, retries=1)
    assert supervise(ws, isolation="thread").steps == []  # bob has not reported: nothing to review
    report(ws, "t1", "bob", status="completed", summary="parser written")
    first = supervise(ws, isolation="thread")
    assert [step.kind for step in first.steps] == ["verify", "retry"]
    assert "FAIL" in first.steps[0].summary and first.steps[1].summary == "automatic retry 1 of 1 (retry policy)"
    task = load_task(ws, "t1")
    assert task.state == "working"
    assert [gate.decidedBy for gate in task.gates] == [ACTOR]
    assert any("approved" in text for text in _texts(ws, "bob"))  # the crafter is told, so it works again
    clock.advance(MINUTE)
    report(ws, "t1", "bob", status="completed", summary="parser fixed?")
    second = supervise(ws, isolation="thread")
    assert [step.kind for step in second.steps] == ["verify"]  # no retry left: the FAIL waits for a person
    task = load_task(ws, "t1")
    assert task.state == "input-required" and [gate.state for gate in task.open_gates] == ["blocked"]
    (ws.root / "ok").write_text("")
    answer_decision(ws, find_decision(build_snapshot(ws), f"task:t1:{task.open_gates[0].id}"), "retry", None)
    clock.advance(MINUTE)
    report(ws, "t1", "bob", status="completed", summary="parser fixed")
    third = supervise(ws, isolation="thread")
    assert "PASS" in third.steps[0].summary and load_task(ws, "t1").state == "done"


def test_needs_changes_sends_the_output_to_the_crafter_and_off_review_nothing_runs(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path / "ws")
    check = "sh -c 'echo rename the lexer; exit 4'"
    configure_guardian(ws, "t1", code="command", command=check, cwd=".", needs_changes_exit=4)
    report(ws, "t1", "bob", status="completed", summary="parser written")
    assert supervise(ws, isolation="thread").steps == []  # not onReview: verified only when asked
    configure_guardian(ws, "t1", on_review=True)
    steps = supervise(ws, isolation="thread").steps
    assert [step.kind for step in steps] == ["verify"] and "NEEDS_CHANGES" in steps[0].summary
    assert load_task(ws, "t1").state == "working"
    [told] = [text for text in _texts(ws, "bob") if "asks for changes" in text]
    assert told.endswith(
        "- rename the lexer\nMake the changes, then report on task t1 again (report_to_parent, or `teamdeck report`)."
    )
    assert supervise(ws, isolation="thread").steps == []  # bob owes a new report: nothing is verified twice


def _stalled(ws: Workspace, clock: Clock) -> str:
    """bob is nudged once (after 10 min) then asked about (after 20 more); the gate id.
    Each step says when the next one falls due, so a supervisor sleeps until then."""
    quiet = supervise(ws, isolation="thread")
    assert quiet.steps == [] and quiet.next_in_s is not None and 9 * MINUTE < quiet.next_in_s <= 10 * MINUTE
    clock.advance(11 * MINUTE)
    nudged = supervise(ws, isolation="thread")
    assert [step.kind for step in nudged.steps] == ["nudge"] and nudged.next_in_s == pytest.approx(20 * MINUTE, abs=1)
    clock.advance(21 * MINUTE)
    asked = supervise(ws, isolation="thread")
    assert [step.kind for step in asked.steps] == ["stall-decision"] and asked.next_in_s is None
    return "stall-bob-1"


def test_give_up_fails_the_task(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path / "ws")
    gate = _stalled(ws, clock)
    decision = find_decision(build_snapshot(ws), f"task:t1:{gate}")
    answer_decision(ws, decision, "reject", "bob is gone")
    assert load_task(ws, "t1").state == "failed"
    assert supervise(ws, isolation="thread").steps == []


def test_nudge_again_restarts_the_wait_and_a_late_report_closes_the_decision(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path / "ws")
    gate = _stalled(ws, clock)
    answer_decision(ws, find_decision(build_snapshot(ws), f"task:t1:{gate}"), "approve", None)
    nudges = [event for event in read_events(ws, "t1") if event.type == "member.nudged"]
    assert [event.payload["attempt"] for event in nudges] == [1, 1]  # the person's nudge starts a new round
    assert sum("Reminder" in text for text in _texts(ws, "bob")) == 2
    clock.advance(31 * MINUTE)
    assert [step.kind for step in supervise(ws, isolation="thread").steps] == ["stall-decision"]
    report(ws, "t1", "bob", status="completed", summary="sorry, done")
    closed = supervise(ws, isolation="thread").steps
    assert [(step.kind, step.summary) for step in closed] == [("stall-decision", "stall decision closed")]
    assert load_task(ws, "t1").open_gates == []


def test_reassigning_to_no_member_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path / "ws")
    gate = _stalled(ws, clock)
    decision = find_decision(build_snapshot(ws), f"task:t1:{gate}")
    before = len(read_events(ws, "t1"))
    with pytest.raises(Refused, match="'zed' is no member of team crew"):
        answer_decision(ws, decision, "approve", "zed")
    assert len(read_events(ws, "t1")) == before and load_task(ws, "t1").open_gates[0].id == gate


def test_autowork_off_does_nothing(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path / "ws", settings="autowork:\n  enabled: false\n")
    clock.advance(10 * 3600)
    result = supervise(ws, isolation="thread")
    assert result.enabled is False and result.steps == []


def test_cli_supervise_and_status_say_why_a_member_is_stalled(tmp_path: Path, run_cli) -> None:
    """The delegation is three hours old by the real clock, which the CLI uses."""
    ws, _clock = _world(tmp_path / "ws", start=datetime.now(UTC) - timedelta(hours=3))
    status = run_cli(ws.root, "status")
    assert status.code == 0, status.err
    assert "! stalled: bob has not read its assignment of t1 for 3 h" in status.out
    once = run_cli(ws.root, "supervise", "--once", "--json")
    assert once.code == 0, once.err
    assert [(step["kind"], step["subject"]) for step in once.json["steps"]] == [("nudge", "t1")]
    again = run_cli(ws.root, "supervise", "--once")
    assert again.out.strip() == "nothing is due"
    data = run_cli(ws.root, "status", "--json").json
    assert [(stall["member"], stall["nudges"]) for stall in data["stalls"]] == [("bob", 1)]


def test_reassign_by_its_own_word_gives_the_task_to_an_idle_member(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path / "ws")
    gate = _stalled(ws, clock)
    decision = find_decision(build_snapshot(ws), f"task:t1:{gate}")
    answer, answered = answer_decision(ws, decision, "reassign", "Carol")  # any case, as names go
    assert answer.action == "reassign" and "reassigned to carol" in answered.summary
    task = load_task(ws, "t1")
    assert [worker.member for worker in task.workers] == ["carol"] and task.open_gates == []
    undelegated = [event for event in read_events(ws, "t1") if event.type == "task.undelegated"]
    assert [(event.payload["workerId"], event.actor) for event in undelegated] == [("bob", "human:tester")]
    assert any('"taskId":"t1"' in text.replace(" ", "") for text in _texts(ws, "carol"))  # her assignment
    assert supervise(ws, isolation="thread").steps == []  # carol's wait starts at her assignment


def test_c7_c13_two_supervisors_at_once_nudge_and_ask_once(tmp_path: Path) -> None:
    """The runner's step and a `teamdeck supervise` may run together: one nudge sent and
    recorded, one decision."""
    from concurrent.futures import ThreadPoolExecutor

    ws, clock = _world(tmp_path / "ws")
    clock.advance(11 * MINUTE)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: supervise(ws, isolation="thread"), range(4)))
    assert sum(event.type == "member.nudged" for event in read_events(ws, "t1")) == 1
    assert sum("Reminder" in text for text in _texts(ws, "bob")) == 1
    clock.advance(21 * MINUTE)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: supervise(ws, isolation="thread"), range(4)))
    assert [gate.id for gate in load_task(ws, "t1").open_gates] == ["stall-bob-1"]


def test_a_plan_task_that_fails_is_retried_by_policy_then_waits_in_needs_fix(tmp_path: Path) -> None:
    """FAIL with a retry left: back to the crafter by itself; FAIL again: the plan waits in
    NEEDS_FIX on the task's FAIL decision, which a person's retry resolves."""
    from teamdeck.protocol.effects.gate_decisions import decide_gate
    from teamdeck.protocol.plans.importer import import_plan
    from teamdeck.protocol.task.planfile import load_plan

    ws, clock = _world(tmp_path / "ws")
    plan = "@@@task\n# Only\n## Objective\nx\n## Definition of Done\n- y\n## Verification\n- z\n@@@\n"
    import_plan(ws, plan, source="one.md", team="crew")
    configure_guardian(ws, "one.01-only", code="command", command="test -f ok", cwd=".", retries=1)
    decide_gate(ws, "one", "plan-approval", "approve", "go")
    supervise(ws, isolation="thread")
    crafter = load_task(ws, "one.01-only").workers[0].id
    report(ws, "one.01-only", crafter, status="completed", summary="first try")
    retried = supervise(ws, isolation="thread")
    assert [step.kind for step in retried.steps if step.kind == "retry"] == ["retry"]
    assert load_task(ws, "one.01-only").state == "working"
    clock.advance(MINUTE)
    report(ws, "one.01-only", crafter, status="completed", summary="second try")
    supervise(ws, isolation="thread")
    task = load_task(ws, "one.01-only")
    assert task.state == "input-required" and load_plan(ws, "one").state == "NEEDS_FIX"
    (ws.root / "ok").write_text("")
    decide_gate(ws, "one.01-only", task.open_gates[0].id, "approve", "fixed the build")
    clock.advance(MINUTE)
    report(ws, "one.01-only", crafter, status="completed", summary="third try")
    supervise(ws, isolation="thread")
    assert load_plan(ws, "one").state == "COMPLETED"


def test_f12_a_nudge_cut_by_a_crash_is_sent_once_by_the_next_command(tmp_path: Path, run_cli) -> None:
    """`teamdeck supervise` killed right after the nudge's event reached task.yaml, before
    its message: the next command finishes it (one reminder), and nothing is nudged twice."""
    ws, _clock = _world(tmp_path / "ws", start=datetime.now(UTC) - timedelta(hours=3))
    crashed = run_cli(ws.root, "supervise", "--once", env={"TEAMDECK_CRASH_AT": "task.after_replace"})
    assert crashed.code == -9
    assert [event.payload["attempt"] for event in read_events(ws, "t1") if event.type == "member.nudged"] == [1]
    assert not any("Reminder" in text for text in _texts(ws, "bob"))
    assert run_cli(ws.root, "status").code == 0  # any command finishes what a crash interrupted
    assert sum("Reminder" in text for text in _texts(ws, "bob")) == 1
    assert run_cli(ws.root, "supervise", "--once").out.strip() == "nothing is due"
    assert sum("Reminder" in text for text in _texts(ws, "bob")) == 1


def test_roles_decide_who_is_given_work_and_who_is_offered(tmp_path: Path) -> None:
    """Seed 002's roles: a plan's tasks go to crafters only (never a gate or coordinator),
    and a stall decision offers only idle crafters."""
    from teamdeck.protocol.effects.gate_decisions import decide_gate
    from teamdeck.protocol.plans.importer import import_plan

    root = tmp_path / "ws"
    root.mkdir()
    clock = Clock()
    ws = Workspace.at(root, clock=clock, actor="human:tester")
    create_team(ws, "crew")
    add_member(ws, "crew", "gina", role="gate")
    add_member(ws, "crew", "cody", role="coordinator")
    add_member(ws, "crew", "alice", role="crafter")
    add_member(ws, "crew", "bob", role="crafter")
    add_member(ws, "crew", "nora")  # no role: a crafter when the team names none
    (root / ".teamdeck.yaml").write_text("autowork:\n  stallAfterSeconds: 600\n  nudges: 0\n")
    tasks = "".join(
        f"@@@task\n# T{n}\n## Objective\nx\n## Definition of Done\n- y\n## Verification\n- z\n@@@\n"
        for n in range(1, 4)
    )
    import_plan(ws, tasks, source="three.md", team="crew")
    decide_gate(ws, "three", "plan-approval", "approve", "go")
    supervise(ws, isolation="thread")
    members = [load_task(ws, f"three.0{n}-t{n}").workers[0].member for n in (1, 2, 3)]
    assert members == ["alice", "bob", "alice"]
    report(ws, "three.01-t1", "alice", status="completed", summary="t1")
    report(ws, "three.03-t3", "alice", status="completed", summary="t3")
    clock.advance(11 * MINUTE)
    supervise(ws, isolation="thread")  # no nudges configured: bob's decision at once
    gate = load_task(ws, "three.02-t2").open_gates[0]
    assert "(idle now: alice)" in gate.questions[0]


def test_supervise_refuses_a_read_only_workspace_in_one_line(tmp_path: Path, run_cli) -> None:
    ws, _clock = _world(tmp_path / "ws", start=datetime.now(UTC) - timedelta(hours=3))
    refused = run_cli(ws.root, "--read-only", "supervise", "--once")
    assert refused.code != 0 and refused.err.count("\n") == 1 and "read-only" in refused.err
    assert not any(event.type == "member.nudged" for event in read_events(ws, "t1"))


def test_the_runners_autowork_loop_looks_as_often_as_the_settings_say(tmp_path: Path, monkeypatch) -> None:
    """``autowork.everySeconds`` is read each time round: 0.2 s makes several steps in a
    second; after the default (5 s) is written back, the loop waits again for 5 s."""
    import threading
    import time

    from teamdeck.protocol.autowork.step import Supervision
    from teamdeck.runner import autowork_loop

    ws, _clock = _world(tmp_path / "ws", "autowork:\n  everySeconds: 0.2\n")
    looked: list[float] = []
    changed = threading.Event()

    def counted(_ws: Workspace) -> Supervision:
        looked.append(time.monotonic())
        if len(looked) == 4:
            (ws.root / ".teamdeck.yaml").write_text("autowork: {}\n")
            changed.set()
        return Supervision()

    monkeypatch.setattr(autowork_loop, "supervise", counted)
    loop = autowork_loop.AutoworkLoop(ws, lambda _line: None)
    loop.start()
    try:
        assert changed.wait(10), f"the loop looked {len(looked)} time(s) in 10 s at everySeconds 0.2"
        deadline = time.monotonic() + 10
        while len(looked) < 5 and time.monotonic() < deadline:  # one more look: its wait was read before the change
            time.sleep(0.05)
        time.sleep(1.0)
        assert len(looked) == 5  # then the default, 5 s
    finally:
        loop.stop()
