"""A reassigned team task is not STALLED at once: the new owner may
have been idle for long, but its idle time counts from the assignment; and ``enter``
on a member in the reassign dialog reassigns, no second key."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from support.pilot_helpers import busy, run, until

from teamdeck.clock import fixed_clock
from teamdeck.sim.clock import DEMO_NOW
from teamdeck.store.workspace import Workspace
from teamdeck.tui.app import create_app
from teamdeck.tui.dialogs.reassign import ReassignScreen
from teamdeck.tui.panels.tasks.task_list import TaskList

KEY = "perf-audit#3"


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_a_task_reassigned_to_an_idle_member_is_not_stalled(demo: Path, size) -> None:
    ws = Workspace.at(demo, clock=fixed_clock(DEMO_NOW), actor="human:tester")
    path = ws.claude_tasks_dir("perf-audit") / "3.json"
    app = create_app(ws, watch=False)

    async def scenario(pilot):
        assert app.snapshot.member("perf-audit/profiler").status == "idle"
        await pilot.press("4")
        tasks = app.main.query_one(TaskList)
        await until(pilot, lambda: tasks.select_key(KEY), "the task")
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, ReassignScreen), "the member picker")
        names = [member.name for member in app.screen.members]
        options = app.screen.query_one("#members")
        options.highlighted = names.index("profiler")
        await pilot.press("enter")  # one key: reassigned
        await until(pilot, lambda: json.loads(path.read_text()).get("owner") == "profiler", "the new owner")
        await until(pilot, lambda: not busy(app), "the action to finish")
        task = app.snapshot.team_task(KEY)
        assert task.owner == "profiler" and task.stalled == "", task.stalled
        row = next(row for row in tasks.rows if row.key == KEY)
        assert "STALLED" not in " ".join(cell.text for cell in row.cells)

    run(app, scenario, size)


def test_idle_time_counts_from_the_assignment(demo: Path) -> None:
    """The read model alone: before, ``stalled: owner profiler idle for 15m`` at once."""
    from teamdeck.protocol.team.task_list import update_team_task
    from teamdeck.view.refresh.build import build_snapshot

    ws = Workspace.at(demo, clock=fixed_clock(DEMO_NOW), actor="human:tester")
    update_team_task(ws, "perf-audit", "3", owner="profiler")
    assert build_snapshot(ws).team_task(KEY).stalled == ""
    # Still idle long after the assignment: stalled again, counted from the assignment.
    later = Workspace.at(demo, clock=fixed_clock(DEMO_NOW + timedelta(hours=1)), actor="human:tester")
    assert build_snapshot(later).team_task(KEY).stalled == "owner profiler idle for 1h"
