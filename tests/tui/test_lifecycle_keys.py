"""The lifecycle in the TUI, through the keys: the plan-approval and FAIL gates
in the decisions queue, plan run, move / cancel / retry / verify a task, the verdict
history, and read-only mode. Each test asserts what was written to disk."""

from __future__ import annotations

import json
from pathlib import Path

from support import plan_world as world
from support.pilot_helpers import busy, make_app, run, showing, type_text, until

from teamdeck.formats.claude_code.inbox import read_inbox
from teamdeck.protocol.task.allowed import next_states
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.planfile import load_plan
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.tui.dialogs.transition import TransitionScreen
from teamdeck.tui.dialogs.verdicts import VerdictsScreen
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.plans.plan_list import PlanList
from teamdeck.tui.panels.tasks.task_list import TaskList
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

PACKAGE = world.IDS["Package"]
SCHEMA = world.IDS["Schema"]


def _events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


async def _open(pilot, app, panel: str, widget_type, key: str, press: str, screen_type) -> None:
    await pilot.press(panel)
    assert app.main.query_one(widget_type).select_key(key), key
    await pilot.pause()
    await pilot.press(press)
    await until(pilot, lambda: showing(app, screen_type), screen_type.__name__)


def test_approving_the_plan_in_the_queue_makes_it_ready(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "imported")
    app = make_app(ws)

    async def scenario(pilot):
        row = next(row for row in app.main.query_one(DecisionList).rows if row.key == "task:release:plan-approval")
        assert row.cells[1].text == "gate"
        await _open(pilot, app, "1", DecisionList, "task:release:plan-approval", "a", ConfirmBar)
        assert "coordinator plan: approve to make it READY" in str(app.main.confirm_bar.body)
        await type_text(pilot, "go")
        await pilot.press("enter")
        await until(
            pilot, lambda: not busy(app) and app.snapshot.plan("release").state == "READY", "the plan to be READY"
        )
        assert [event["type"] for event in _events(ws.events_file("release"))][-2:] == [
            "gate.approved",
            "task.state_changed",
        ]
        assert load_plan(ws, "release").state == "READY"
        assert _events(ws.plan_events_file("release"))[-1]["payload"] == {
            "from": "PLANNING",
            "to": "READY",
            "reason": "approved at the approval gate",
        }
        assert {task.state for task in app.snapshot.plan("release").tasks} == {"approved"}
        assert app.snapshot.task(SCHEMA).state == "approved"  # the tasks panel sees it too

    run(app, scenario)


def test_running_the_plan_starts_wave_one_and_delegates(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "imported")
    from teamdeck.protocol.effects.gate_decisions import decide_gate

    decide_gate(ws, "release", "plan-approval", "approve", "go")
    app = make_app(ws)

    async def scenario(pilot):
        await _open(pilot, app, "6", PlanList, "release", "x", ConfirmBar)
        await type_text(pilot, "alice bob")
        await pilot.press("enter")
        await until(
            pilot, lambda: not busy(app) and app.snapshot.plan("release").state == "EXECUTING", "the plan to run"
        )
        plan = load_plan(ws, "release")
        assert (plan.state, plan.currentWave) == ("EXECUTING", 1)
        assert _events(ws.plan_events_file("release"))[-1]["payload"]["to"] == "EXECUTING"
        assert load_task(ws, SCHEMA).state == "working" and load_task(ws, SCHEMA).workers[0].member == "alice"
        inbox = [entry.raw["text"] for entry in read_inbox(ws.inbox("crew", "bob")).entries]
        assert any('"task_assignment"' in text and world.IDS["Fixtures"] in text for text in inbox)

    run(app, scenario)


def test_a_fail_gate_is_labelled_and_retry_sends_the_task_back_to_work(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "failed")
    gate_id = world.fail_gate(ws)
    key = f"task:{PACKAGE}:{gate_id}"
    app = make_app(ws)

    async def scenario(pilot):
        row = next(row for row in app.main.query_one(DecisionList).rows if row.key == key)
        assert row.cells[1].text == "FAIL"
        app.main.query_one(DecisionList).select_key(key)
        await pilot.pause()
        keys = {binding.binding.key: binding.binding.description for binding in app.screen.active_bindings.values()}
        assert keys["a"] == "Retry" and keys["r"] == "Give up"
        await pilot.press("a")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm dialog")
        assert app.main.confirm_bar.confirm_label == "Retry" and "goes back to working" in str(
            app.main.confirm_bar.body
        )
        await pilot.press("enter")
        await until(pilot, lambda: not busy(app) and app.snapshot.task(PACKAGE).state == "working", "the retry")
        events = _events(ws.events_file(PACKAGE))
        assert events[-2]["type"] == "gate.approved" and events[-2]["payload"]["gateId"] == gate_id
        assert events[-1]["payload"]["to"] == "working" and load_task(ws, PACKAGE).gate(gate_id).state == "approved"

    run(app, scenario)


def test_giving_up_at_a_fail_gate_needs_a_note_and_fails_the_task(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "failed")
    key = f"task:{PACKAGE}:{world.fail_gate(ws)}"
    app = make_app(ws)

    async def scenario(pilot):
        await _open(pilot, app, "1", DecisionList, key, "r", ConfirmBar)
        assert app.main.confirm_bar.confirm_label == "Give up" and app.main.confirm_bar.note_rule == "required"
        await type_text(pilot, "not worth it")
        await pilot.press("enter")
        await until(pilot, lambda: not busy(app) and app.snapshot.task(PACKAGE).state == "failed", "the give-up")
        last = _events(ws.events_file(PACKAGE))[-1]
        assert last["type"] == "task.state_changed" and last["payload"]["to"] == "failed"
        assert load_task(ws, PACKAGE).state == "failed"

    run(app, scenario)


def test_move_a_task_with_the_picker_of_legal_states(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "executing")
    app = make_app(ws)
    legal = next_states("working")

    async def scenario(pilot):
        await _open(pilot, app, "4", TaskList, SCHEMA, "t", TransitionScreen)
        assert app.screen.states == legal
        target = legal.index("input-required")
        for _ in range(target):
            await pilot.press("down")
        await pilot.press("enter")  # picks the state, then the reason
        await type_text(pilot, "waiting for legal")
        await pilot.press("enter")
        await until(pilot, lambda: not busy(app) and app.snapshot.task(SCHEMA).state == "input-required", "the move")
        last = _events(ws.events_file(SCHEMA))[-1]
        assert last["payload"] == {"from": "working", "to": "input-required", "reason": "waiting for legal"}
        assert last["actor"] == "human:tester"

    run(app, scenario)


def test_cancel_and_retry_keys(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "failed")
    app = make_app(ws)

    async def scenario(pilot):
        await _open(pilot, app, "4", TaskList, PACKAGE, "R", ConfirmBar)
        await pilot.press("enter")
        await until(pilot, lambda: not busy(app) and app.snapshot.task(PACKAGE).state == "working", "the retry")
        assert _events(ws.events_file(PACKAGE))[-2]["payload"]["note"] == "retry"
        notes = world.IDS["Release notes"]
        await _open(pilot, app, "4", TaskList, notes, "x", ConfirmBar)
        await type_text(pilot, "out of scope")
        await pilot.press("enter")
        await until(pilot, lambda: not busy(app) and app.snapshot.task(notes).state == "canceled", "the cancel")
        assert _events(ws.events_file(notes))[-1]["payload"] == {
            "from": "approved",
            "to": "canceled",
            "reason": "out of scope",
        }

    run(app, scenario)


def test_verify_runs_the_guardian_and_the_verdict_history_shows_it(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "executing")
    app = make_app(ws)

    async def scenario(pilot):
        await _open(pilot, app, "4", TaskList, SCHEMA, "g", ConfirmBar)
        await pilot.press("enter")
        await until(pilot, lambda: not busy(app) and SCHEMA in app.snapshot.verdicts, "the verdict")
        verdicts = list(ws.verdicts_dir(SCHEMA).glob("gv-*.json"))
        assert len(verdicts) == 1 and json.loads(verdicts[0].read_text())["guardian"] == "schema"
        types = [event["type"] for event in _events(ws.events_file(SCHEMA))]
        assert (
            types.index("guardian.assigned")
            < types.index("guardian.verdict_recorded")
            < types.index("guardian.verdict_applied")
        )
        assert app.snapshot.task(SCHEMA).state == load_task(ws, SCHEMA).state != "working"
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VerdictsScreen), "the verdict history")
        shown = str(app.screen.query_one("#verdicts-body").render())
        status = json.loads(verdicts[0].read_text())["status"]
        assert status in shown and "schema" in shown

    run(app, scenario)


def test_read_only_disables_every_lifecycle_write(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "failed")
    app = make_app(ws, read_only=True)
    before = ws.events_file(PACKAGE).read_bytes()

    async def scenario(pilot):
        await pilot.press("4")
        app.main.query_one(TaskList).select_key(PACKAGE)
        await pilot.pause()
        panel = app.main.query_one("#tasks-panel")
        assert [panel.check_action(action, ()) for action in ("transition", "verify", "retry", "cancel_task")] == [
            None
        ] * 4
        assert panel.check_action("verdicts", ()) is True
        for key in ("t", "g", "R", "x"):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is app.main
        await pilot.press("6")
        assert app.main.query_one("#plans-panel").check_action("run", ()) is None
        await pilot.press("x")
        await pilot.pause()
        assert app.screen is app.main
        assert ws.events_file(PACKAGE).read_bytes() == before

    run(app, scenario)


def test_verify_greyed_on_a_new_task_says_which_state_it_is_in_and_what_verify_needs(ws) -> None:
    """``g`` on a task verify cannot start for names its state, the states verify runs
    from and the way there, instead of a bare "not possible"."""
    create_task(ws, "t2", "Write the docs", state="approved")
    app = make_app(ws)

    async def scenario(pilot):
        await pilot.press("4")
        assert app.main.query_one(TaskList).select_key("t2")
        await pilot.pause()
        await pilot.press("g")
        await until(pilot, lambda: any("Verify:" in str(n.message) for n in app._notifications), "the reason")
        notice = next(str(n.message) for n in app._notifications if "Verify:" in str(n.message))
        assert notice.startswith("Verify: the task is approved: move it to working first"), notice
        assert "verify starts on a working task" in notice, notice
        assert not any(event["type"] == "guardian.assigned" for event in _events(ws.events_file("t2")))

    run(app, scenario)
