"""Coordinator plans (seed 002): the @@@task format, waves, import, the plan machine."""

from __future__ import annotations

import itertools
import json
from datetime import timedelta

import pytest
from support.locations import FIXED_NOW

from teamdeck.errors import Refused
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.plans.importer import import_plan
from teamdeck.protocol.plans.machine import PLAN_TRANSITIONS, advance, cancel_plan, plan_transition_event
from teamdeck.protocol.plans.overview import plan_overview
from teamdeck.protocol.plans.parser import PlanProblems, parse_blocks
from teamdeck.protocol.plans.waves import compute_waves
from teamdeck.protocol.task.lifecycle import transition
from teamdeck.protocol.task.planfile import list_plans, load_plan, plan_events
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.store.workspace import Workspace


def block(title: str, depends: str | None = None, *, scope: bool = True) -> str:
    lines = [
        "@@@task",
        f"# {title}",
        "",
        "## Objective",
        f"Do {title}.",
        *(["## Scope", "- src/"] if scope else []),
        "## Definition of Done",
        "- it works",
        "## Verification",
        "- pytest",
    ]
    if depends:
        lines.append(f"Depends: {depends}")
    return "\n".join([*lines, "@@@", ""])


SIX = "# Six tasks\n\nProse the parser ignores.\n\n" + "".join(
    [
        block("Schema"),
        block("Fixtures", scope=False),
        block("Store", "Schema"),
        block("API", "store, #2"),
        block("CLI", "API"),
        block("Docs", "Schema, CLI"),
    ]
)
"""Six tasks in four waves: Schema, Fixtures | Store | API | CLI | Docs (Docs after CLI)."""


# --- the format -------------------------------------------------------------------------
def test_blocks_are_parsed_with_sections_and_depends():
    blocks = parse_blocks(block("Auth", "Store, #1"))
    assert len(blocks) == 1
    auth = blocks[0]
    assert auth.title == "Auth" and auth.line == 1
    assert auth.sections == {
        "objective": "Do Auth.",
        "scope": "- src/",
        "definitionOfDone": "- it works",
        "verification": "- pytest",
    }
    assert auth.depends == ["Store", "#1"] and auth.depends_line == 12


def test_every_problem_is_reported_with_its_line():
    text = "\n".join(
        [
            "@@@task",
            "## Objective",
            "x",
            "## Verification",
            "",
            "## Colour",
            "red",
            "@@@",  # 1-8
            "@@@",  # 9
            "@@@task",
            "# Dup",
            "## Objective",
            "a",
            "## Definition of Done",
            "b",
            "## Verification",
            "c",
            "@@@",  # 10-18
            "@@@task",
            "# Dup",
            "## Objective",
            "a",
            "## Objective",
            "again",
            "## Definition of Done",
            "b",
            "## Verification",
            "c",
            "@@@",  # 19-29
            "@@@task",
            "# Open",  # 30-31
        ]
    )
    with pytest.raises(PlanProblems) as caught:
        parse_blocks(text, "p.md")
    assert caught.value.problems == [
        (1, "the block '?' has no '## Definition of Done' section"),
        (1, "the block has no '# title' line"),
        (4, "section 'Verification' is empty"),
        (6, "unknown section '## Colour' (sections: Objective, Scope, Definition of Done, Verification)"),
        (7, "text outside any section: 'red'"),
        (9, "'@@@' closes no @@@task block"),
        (19, "the title 'Dup' is used twice (first at line 10)"),
        (23, "section 'Objective' appears twice in this block"),
        (24, "text outside any section: 'again'"),
        (30, "@@@task block is not closed with '@@@'"),
    ]
    assert str(caught.value).startswith("p.md: 10 problem(s), nothing was imported: line 1: the block")


def test_a_file_without_blocks_is_refused():
    with pytest.raises(PlanProblems, match="line 1: no @@@task blocks found"):
        parse_blocks("# just prose\n")


def test_waves_are_one_more_than_the_deepest_dependency():
    assert compute_waves({"a": [], "b": [], "c": ["a"], "d": ["c", "b"], "e": ["a", "d"]}) == {
        "a": 1,
        "b": 1,
        "c": 2,
        "d": 3,
        "e": 4,
    }


def test_a_cycle_is_refused_naming_it():
    with pytest.raises(PlanProblems, match="dependency cycle: B -> D -> C -> B"):
        compute_waves({"a": [], "b": ["a", "d"], "c": ["b"], "d": ["c"]}, {"a": "A", "b": "B", "c": "C", "d": "D"})


# --- import -------------------------------------------------------------------------------
def test_import_makes_planned_tasks_in_waves_and_an_approval_gate(ws):
    done = import_plan(ws, SIX, source="six.md")
    plan = done.plan
    assert (plan.id, plan.title, plan.state, plan.waves) == ("six", "Six tasks", "PLANNING", 5)
    waves = {task.title: task.wave for task in plan.tasks}
    assert waves == {"Schema": 1, "Fixtures": 1, "Store": 2, "API": 3, "CLI": 4, "Docs": 5}
    api = load_task(ws, "six.04-api")
    assert (api.state, api.plan, api.wave, api.dependsOn) == ("planned", "six", 3, ["six.03-store", "six.02-fixtures"])
    assert api.spec.objective == "Do API." and load_task(ws, "six.02-fixtures").spec.scope == ""
    coordinator = load_task(ws, "six")
    gate = coordinator.gate("plan-approval")
    assert coordinator.state == "planned" and gate.kind == "plan-approval" and gate.state == "blocked"
    assert "Wave 3: API (six.04-api)" in gate.questions
    assert [event.type for event in plan_events(ws, "six")] == ["plan.created"]
    assert list_plans(ws) == ([plan], [])


def test_an_invalid_plan_imports_nothing(ws):
    with pytest.raises(PlanProblems, match="'Store' depends on 'Nope', which is not a task of this plan"):
        import_plan(ws, block("Schema") + block("Store", "Nope"), source="bad.md")
    with pytest.raises(PlanProblems, match="dependency cycle: A -> B -> A"):
        import_plan(ws, block("A", "B") + block("B", "A"), source="cycle.md")
    assert not ws.plans_dir.exists() and not ws.tasks_dir.exists()


def test_import_refuses_taken_ids_and_resumes_an_interrupted_import(ws):
    import_plan(ws, SIX, source="six.md")
    with pytest.raises(Refused, match="plan 'six' already exists \\(imported from six.md\\); choose another id"):
        import_plan(ws, block("Other"), source="six.md")
    # an import that died after two tasks: the same file again completes it
    import_plan(ws, SIX, source="six.md", plan_id="again")
    for task_id in ("again.03-store", "again.04-api", "again.05-cli", "again.06-docs", "again"):
        for path in ws.task_dir(task_id).rglob("*"):
            if path.is_file():
                path.unlink()
    redo = import_plan(ws, SIX, source="six.md", plan_id="again")
    assert redo.created == ["again.03-store", "again.04-api", "again.05-cli", "again.06-docs"]
    assert load_task(ws, "again").gate("plan-approval").state == "blocked"


# --- the machine --------------------------------------------------------------------------
@pytest.fixture
def ticking(tmp_path):
    """A workspace whose clock moves one second per reading (reports come after verdicts)."""
    root = tmp_path / "tw"
    root.mkdir()
    seconds = itertools.count()
    return Workspace.at(root, clock=lambda: FIXED_NOW + timedelta(seconds=next(seconds)), actor="human:tester")


def _report(ws, task_id: str, agent: str = "w1", status: str = "completed", **more) -> None:
    path = ws.final_output(task_id, agent)
    path.parent.mkdir(parents=True, exist_ok=True)
    from teamdeck.clock import iso

    path.write_text(json.dumps({"status": status, "summary": "did it", "finishedAt": iso(ws.clock()), **more}))


def test_every_plan_move_the_seed_names_is_in_the_table():
    for source, target in [
        ("PLANNING", "READY"),
        ("READY", "EXECUTING"),
        ("EXECUTING", "WAVE_COMPLETE"),
        ("WAVE_COMPLETE", "VERIFYING"),
        ("VERIFYING", "NEEDS_FIX"),
        ("NEEDS_FIX", "EXECUTING"),
        ("VERIFYING", "COMPLETED"),
    ]:
        assert target in PLAN_TRANSITIONS[source]


def test_a_plan_waits_for_approval_then_runs_wave_by_wave(ticking):
    ws = ticking
    import_plan(ws, block("A") + block("B", "A"), source="ab.md")
    waiting = advance(ws, "ab", isolation="thread")
    assert waiting.plan.state == "PLANNING" and "gate plan-approval on task ab" in waiting.waiting[0]
    decide_gate(ws, "ab", "plan-approval", "approve")
    started = advance(ws, "ab", isolation="thread")
    assert started.plan.state == "EXECUTING" and started.plan.currentWave == 1
    assert load_task(ws, "ab.01-a").state == "working" and load_task(ws, "ab.02-b").state == "approved"
    with pytest.raises(
        Refused, match="ab.02-b cannot start: it depends on tasks that are not done: ab.01-a \\(working\\)"
    ):
        transition(ws, "ab.02-b", "working")
    assert started.waiting == ["ab.01-a: no worker has reported"]
    _report(ws, "ab.01-a")
    second = advance(ws, "ab", isolation="thread")
    assert [move.split(":")[0] for move in second.moves] == [
        "EXECUTING -> WAVE_COMPLETE",
        "WAVE_COMPLETE -> VERIFYING",
        "VERIFYING -> EXECUTING",
    ]
    assert load_task(ws, "ab.01-a").state == "done" and load_task(ws, "ab.02-b").state == "working"
    _report(ws, "ab.02-b")
    final = advance(ws, "ab", isolation="thread")
    assert final.plan.state == "COMPLETED" and load_task(ws, "ab").state == "done"
    assert advance(ws, "ab", isolation="thread").moves == []  # final: nothing more to do


def test_needs_fix_waits_for_new_reports_then_verifies_again(ticking):
    ws = ticking
    import_plan(ws, block("A"), source="one.md")
    decide_gate(ws, "one", "plan-approval", "approve")
    advance(ws, "one", isolation="thread")
    _report(ws, "one.01-a", "w1", changedFiles=["x.py"])
    _report(ws, "one.01-a", "w2", changedFiles=["x.py"])
    from teamdeck.protocol.guardians.verification import configure_guardian

    configure_guardian(ws, "one.01-a", code="diff")
    fix = advance(ws, "one", isolation="thread")
    assert fix.plan.state == "EXECUTING" and fix.moves[-1].startswith("NEEDS_FIX -> EXECUTING: fixes under way")
    assert fix.waiting == [
        "one.01-a: w1 has not reported since the last verdict; w2 has not reported since the last verdict"
    ]
    _report(ws, "one.01-a", "w1", changedFiles=["x.py"])
    _report(ws, "one.01-a", "w2", changedFiles=["y.py"])
    assert advance(ws, "one", isolation="thread").plan.state == "COMPLETED"


def test_giving_up_on_a_failed_task_fails_the_plan_and_cancels_the_rest(ticking):
    ws = ticking
    import_plan(ws, block("A") + block("B", "A"), source="ab.md")
    decide_gate(ws, "ab", "plan-approval", "approve")
    advance(ws, "ab", isolation="thread")
    _report(ws, "ab.01-a", status="failed")
    stuck = advance(ws, "ab", isolation="thread")
    assert stuck.plan.state == "NEEDS_FIX" and load_task(ws, "ab.01-a").state == "input-required"
    gate = load_task(ws, "ab.01-a").open_gates[0]
    decide_gate(ws, "ab.01-a", gate.id, "reject", "not worth it")
    failed = advance(ws, "ab", isolation="thread")
    assert failed.plan.state == "FAILED"
    assert {load_task(ws, task_id).state for task_id in ("ab.02-b", "ab")} == {"canceled"}


def test_rejecting_the_plan_cancels_it_and_its_tasks(ws):
    import_plan(ws, SIX, source="six.md")
    decide_gate(ws, "six", "plan-approval", "reject", "too big")
    result = advance(ws, "six", isolation="thread")
    assert result.plan.state == "CANCELED"
    assert {load_task(ws, entry.id).state for entry in result.plan.tasks} == {"canceled"}


def test_cancel_plan_and_illegal_plan_moves(ws):
    import_plan(ws, SIX, source="six.md")
    assert cancel_plan(ws, "six", reason="no longer needed").plan.state == "CANCELED"
    with pytest.raises(
        Refused, match="Plan six cannot go from CANCELED to CANCELED; from CANCELED it can go to: none: it is final"
    ):
        cancel_plan(ws, "six")
    with pytest.raises(Refused, match="cannot go from CANCELED to READY"):
        plan_transition_event(ws, load_plan(ws, "six"), "READY", reason="x")


def test_overview_shows_waves_and_what_blocks_what(ws):
    import_plan(ws, SIX, source="six.md")
    view = plan_overview(ws, "six")
    assert [[row.title for row in wave] for wave in view.waves] == [
        ["Schema", "Fixtures"],
        ["Store"],
        ["API"],
        ["CLI"],
        ["Docs"],
    ]
    assert view.row("six.06-docs").waiting_on == ("six.01-schema", "six.05-cli")
    assert view.approval.state == "blocked" and "approves or rejects gate plan-approval" in view.next_step


def test_a_worker_blocked_by_hand_gets_its_gate_and_the_plan_waits_for_a_person(ticking):
    ws = ticking
    import_plan(ws, block("A"), source="one.md")
    decide_gate(ws, "one", "plan-approval", "approve")
    advance(ws, "one", isolation="thread")
    _report(ws, "one.01-a", "w1", status="blocked", questions=["which database?"])
    waiting = advance(ws, "one", isolation="thread")
    task = load_task(ws, "one.01-a")
    assert task.state == "input-required" and task.open_gates[0].questions == ["which database?"]
    assert waiting.actions == [f"one.01-a: gate {task.open_gates[0].id} opened for a blocked worker"]
    assert waiting.waiting == [f"one.01-a is input-required: gate(s) {task.open_gates[0].id} wait for a person"]
    decide_gate(ws, "one.01-a", task.open_gates[0].id, "approve", "postgres")
    _report(ws, "one.01-a", "w1")
    assert advance(ws, "one", isolation="thread").plan.state == "COMPLETED"


def test_plan_show_says_who_moves_the_plan_on(tmp_path, run_cli):
    """Plans advance by themselves under ``teamdeck run`` / ``teamdeck supervise``
    (autowork): ``plan show`` and the approval question say so, and name ``plan run``
    as the way by hand; with ``autowork.enabled: false`` only ``plan run`` moves it."""
    from support.plan_world import build

    ws = build(tmp_path / "ws", "executing")
    shown = run_cli(ws.root, "plan", "show", "release")
    assert shown.code == 0, shown.err
    by_itself = (
        "next: the workers of wave 1 report; then teamdeck run or supervise moves it on "
        "(by hand: teamdeck plan run release)"
    )
    assert by_itself in shown.out
    question = load_task(ws, "release").gate("plan-approval").questions[0]
    assert question == (
        "Approve this plan? approve: it is READY, and teamdeck run or supervise starts it "
        "(by hand: teamdeck plan run release); reject: it is canceled."
    )

    (ws.root / ".teamdeck.yaml").write_text("autowork:\n  enabled: false\n")
    off = run_cli(ws.root, "plan", "show", "release", "--json").json["nextStep"]
    assert off == "the workers of wave 1 report; then teamdeck plan run release (autowork is off)"
    off_ws = build(tmp_path / "off", "imported")
    (off_ws.root / ".teamdeck.yaml").write_text("autowork:\n  enabled: false\n")
    assert plan_overview(off_ws, "release").next_step.startswith("a person approves or rejects gate plan-approval")
    import_plan(off_ws, block("A"), source="one.md")
    [manual] = load_task(off_ws, "one").gate("plan-approval").questions[:1]
    assert manual == "Approve this plan? approve: it is READY to run (teamdeck plan run one); reject: it is canceled."
