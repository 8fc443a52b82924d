"""Issue 9 in the TUI: a gate decided with a note reaches the blocked worker's inbox
(end to end, through the CLI's ``inbox --inject``), and the team-task keys of the
tasks panel (reassign, mark pending) write Claude Code's task files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support.locations import FIXED_NOW, FIXTURES
from support.pilot_helpers import busy, make_app, run, showing, type_text, until

from teamdeck.clock import fixed_clock
from teamdeck.protocol.coordination.delegation import delegate
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.team.messaging.injection import inject
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace
from teamdeck.tui.dialogs.reassign import ReassignScreen
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.tasks.task_list import TaskList
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

TEAM = "analysis-team"


def test_a_decision_in_the_tui_reaches_the_blocked_workers_inject(ws, run_cli) -> None:
    """final.json blocked -> gate (auto-join) -> approve with a note in the TUI ->
    ``teamdeck inbox alpha bob --inject`` prints it as a <teammate-message>."""
    create_team(ws, "alpha")
    add_member(ws, "alpha", "bob")
    create_task(ws, "t1", "Build the parser", team="alpha")
    delegate(ws, "t1", "bob")
    inject(ws, "alpha", "bob")  # bob took its assignment
    app = make_app(ws, watch=True)

    async def scenario(pilot):
        write_final_output(ws, "t1", "bob", {"status": "blocked", "summary": "stuck", "questions": ["LALR or PEG?"]})
        await until(pilot, lambda: app.snapshot.decision("task:t1:g-bob-1") is not None, "the gate from the auto-join")
        await pilot.press("1")
        assert app.main.query_one(DecisionList).select_key("task:t1:g-bob-1")
        await pilot.press("a")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm dialog")
        await type_text(pilot, "PEG, keep it small")
        await pilot.press("enter")
        await until(pilot, lambda: app.snapshot.decision("task:t1:g-bob-1") is None, "the gate to leave the queue")
        await until(pilot, lambda: not busy(app), "the action to finish")

    run(app, scenario)
    result = run_cli(ws.root, "inbox", "alpha", "bob", "--inject")
    assert result.code == 0, result.err
    assert '<teammate-message teammate_id="team-lead"' in result.out
    assert 'summary="gate g-bob-1 approved"' in result.out
    assert "was approved by human:tester" in result.out and "Note: PEG, keep it small" in result.out
    assert "tasks/t1/shared/human-notes.md" in result.out


def captured(tmp_path: Path) -> Workspace:
    shutil.copytree(FIXTURES / "analysis-team", tmp_path / "ws")
    return Workspace.at(tmp_path / "ws", clock=fixed_clock(FIXED_NOW), actor="human:tester")


def test_reassign_a_stalled_task_with_the_picker(tmp_path) -> None:
    ws = captured(tmp_path)
    path = ws.claude_tasks_dir(TEAM) / "2.json"
    raw = json.loads(path.read_text())
    app = make_app(ws)

    async def scenario(pilot):
        await pilot.press("4")
        tasks = app.main.query_one(TaskList)
        assert f"{TEAM}#2" in {row.key for row in tasks.rows} and tasks.select_key(f"{TEAM}#2")
        assert app.snapshot.team_task(f"{TEAM}#2").stalled
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, ReassignScreen), "the member picker")
        names = [member.name for member in app.screen.members]
        assert names[:3] == ["team-lead", "task-analyst", "config-analyst"]
        await pilot.press("enter")  # the first teammate that is not the owner: task-analyst, reassigned at once
        await until(pilot, lambda: json.loads(path.read_text()).get("owner") == "task-analyst", "the new owner")
        await until(pilot, lambda: not busy(app), "the action to finish")
        await until(pilot, lambda: not app.snapshot.team_task(f"{TEAM}#2").stalled, "the task to be unstalled")

    run(app, scenario)
    expected = dict(raw, owner="task-analyst", updatedAt=int(FIXED_NOW.timestamp() * 1000))
    assert path.read_bytes() == json.dumps(expected, indent=2, ensure_ascii=False).encode()
    inbox = json.loads(ws.inbox(TEAM, "task-analyst").read_text())
    assert json.loads(inbox[-1]["text"])["type"] == "task_assignment"


def test_mark_pending_is_confirmed_first_and_cancel_writes_nothing(tmp_path) -> None:
    ws = captured(tmp_path)
    path = ws.claude_tasks_dir(TEAM) / "2.json"
    before = path.read_bytes()
    app = make_app(ws)

    async def scenario(pilot):
        await pilot.press("4")
        assert app.main.query_one(TaskList).select_key(f"{TEAM}#2")
        await pilot.press("p")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm dialog")
        await pilot.press("escape")
        await until(pilot, lambda: not showing(app, ConfirmBar), "the dialog to close")
        assert path.read_bytes() == before
        await pilot.press("p")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm dialog")
        await pilot.press("enter")
        await until(pilot, lambda: json.loads(path.read_text())["status"] == "pending", "the status")
        await until(pilot, lambda: not busy(app), "the action to finish")
        await until(pilot, lambda: app.snapshot.team_task(f"{TEAM}#2").status == "pending", "the view")
        assert app.main.query_one("#tasks-panel").check_action("mark_pending", ()) is None  # pending already

    run(app, scenario)
    assert json.loads(path.read_text())["owner"] == "config-analyst"  # the owner is kept


def test_team_task_keys_are_off_for_teamdeck_tasks_and_in_read_only(tmp_path) -> None:
    ws = captured(tmp_path)
    app = make_app(ws, read_only=True)

    async def scenario(pilot):
        await pilot.press("4")
        panel = app.main.query_one("#tasks-panel")
        assert app.main.query_one(TaskList).select_key(f"{TEAM}#2")
        await pilot.pause()
        assert panel.check_action("reassign", ()) is None and panel.check_action("mark_pending", ()) is None
        before = (ws.claude_tasks_dir(TEAM) / "2.json").read_bytes()
        await pilot.press("o", "p")
        await pilot.pause()
        assert not (showing(app, ReassignScreen) or showing(app, ConfirmBar))
        assert (ws.claude_tasks_dir(TEAM) / "2.json").read_bytes() == before

    run(app, scenario)


def test_the_team_task_list_updates_live_from_the_watcher(tmp_path) -> None:
    ws = captured(tmp_path)
    app = make_app(ws, watch=True)

    async def scenario(pilot):
        await pilot.press("4")
        rows = lambda: {row.key for row in app.main.query_one(TaskList).rows}  # noqa: E731
        assert f"{TEAM}#9" not in rows()
        task = {"id": "9", "subject": "Write the summary", "description": "", "status": "in_progress"}
        (ws.claude_tasks_dir(TEAM) / "9.json").write_text(json.dumps(dict(task, owner="config-analyst"), indent=2))
        await until(pilot, lambda: f"{TEAM}#9" in rows(), "the new task's row")
        assert app.snapshot.team_task(f"{TEAM}#9").stalled  # its owner has been idle for days
        (ws.claude_tasks_dir(TEAM) / "10.json").write_text("{broken")
        await until(
            pilot, lambda: any(key.startswith(f"problem:{TEAM}:") for key in rows()), "the bad file as a problem row"
        )

    run(app, scenario)
