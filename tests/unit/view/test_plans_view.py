"""Plans and verdict histories in the read model: read once, refreshed only from the
paths that changed (plans/<id>/, a plan's tasks, tasks/<id>/guardian/)."""

from __future__ import annotations

from pathlib import Path

from support import plan_world as world

from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.view.refresh.build import build_snapshot, refresh


def test_a_failed_wave_shows_in_the_plan_and_the_verdict_history(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "failed")
    snapshot = build_snapshot(ws)
    plan = snapshot.plan("release")
    assert plan is not None and (plan.state, plan.current_wave, plan.problem) == ("NEEDS_FIX", 2, None)
    assert [[task.title for task in wave] for wave in plan.waves] == [
        ["Schema", "Fixtures", "Build"],
        ["Store", "Package"],
        ["Release notes"],
    ]
    package = next(task for task in plan.tasks if task.title == "Package")
    assert (package.state, package.verdict, package.gates) == (
        "input-required",
        "FAIL",
        ((world.fail_gate(ws), "verification-failed"),),
    )
    notes = next(task for task in plan.tasks if task.title == "Release notes")
    assert notes.waiting_on == (world.IDS["Package"],) and plan.done() == 4
    assert "decides the gates of release.05-package" in plan.next_step
    history = snapshot.verdicts[world.IDS["Package"]]
    assert [verdict.status for verdict in history.verdicts] == ["FAIL"] and history.problems == ()
    verdict = history.last
    assert verdict.guardian == "command" and [flag.code for flag in verdict.flags] == ["exit-code"]
    assert (
        dict(verdict.evidence)["exitCode"] == "1" and dict(verdict.evidence)["command"] == '["test", "-f", "dist-ok"]'
    )
    assert verdict.recommendations and verdict.created_at.startswith("2026-03-01T09:")
    assert [verdict.status for verdict in snapshot.verdicts[world.IDS["Schema"]].verdicts] == ["PASS"]
    assert world.IDS["Release notes"] not in snapshot.verdicts  # never verified: no history


def test_the_plan_is_read_again_only_when_its_files_or_its_tasks_change(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "imported")
    before = build_snapshot(ws)
    assert before.plan("release").state == "PLANNING" and before.plan("release").approval == "blocked"
    unrelated = refresh(before, [ws.root / "teams" / "crew" / "config.json"])
    assert unrelated.plan("release") is before.plan("release")

    decide_gate(ws, "release", "plan-approval", "approve", "go")
    # only the coordinator task's files are named: the plan is shown again because it shows that task
    after = refresh(before, [ws.task_file("release"), ws.events_file("release")])
    plan = after.plan("release")
    assert (plan.state, plan.approval, plan.coordinator_state) == ("READY", "approved", "approved")
    assert {task.state for task in plan.tasks} == {"approved"}


def test_plans_appear_and_disappear_with_their_directories(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "imported")
    plan_dir = ws.plan_file("release").parent
    hidden = plan_dir.rename(tmp_path / "elsewhere")
    empty = refresh(build_snapshot(ws), [plan_dir])
    assert empty.plans == ()
    hidden.rename(plan_dir)
    back = refresh(empty, [plan_dir / "plan.yaml"])
    assert [plan.id for plan in back.plans] == ["release"]
    (plan_dir / "plan.yaml").write_text("state: [")
    (plan_dir / "events.jsonl").write_text("")
    broken = refresh(back, [plan_dir / "plan.yaml"])
    assert broken.plan("release").state == "PLANNING" and broken.plan("release").problem  # last good state kept
    assert any(problem.path == "plans/release" for problem in broken.problems)


def test_a_new_verdict_is_read_when_the_guardian_directory_changes(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "failed")
    before = build_snapshot(ws)
    decide_gate(ws, world.IDS["Package"], world.fail_gate(ws), "approve", "retry")
    (ws.root / "dist-ok").write_text("")
    from teamdeck.protocol.guardians.verification import verify

    run = verify(ws, world.IDS["Package"], isolation="thread")
    assert run.verdict.status == "PASS"
    stale = refresh(before, [ws.task_file(world.IDS["Package"])])
    assert [verdict.status for verdict in stale.verdicts[world.IDS["Package"]].verdicts] == ["FAIL"]
    fresh = refresh(stale, [ws.verdict_file(world.IDS["Package"], run.verdict.id)])
    assert [verdict.status for verdict in fresh.verdicts[world.IDS["Package"]].verdicts] == ["FAIL", "PASS"]
