"""Snapshots of a team's Claude Code task list in the tasks panel: the demo's
two teams under teamdeck's own tasks, a stalled task selected with its detail, and the
reassign picker. Regenerate with ``pytest tests/tui/test_team_task_snapshots.py
--snapshot-update`` and look at every changed SVG as PNG before committing it."""

from __future__ import annotations

from pathlib import Path

from support.pilot_helpers import SIZE, until
from test_snapshots import demo_app, prepared, select

from teamdeck.tui.dialogs.reassign import ReassignScreen

STALLED = "checkout-revamp#2"


def test_task_list_with_a_stalled_team_task(demo: Path, snap_compare) -> None:
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await select(pilot, app, "tasks", "#task-list", STALLED)
        assert app.snapshot.team_task(STALLED).stalled

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_reassign_picker(demo: Path, snap_compare) -> None:
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await select(pilot, app, "tasks", "#task-list", STALLED)
        await pilot.press("o")
        await until(pilot, lambda: isinstance(app.screen, ReassignScreen), "the member picker")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))
