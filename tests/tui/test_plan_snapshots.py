"""Snapshots of a coordinator plan in each phase: imported and
waiting for approval, executing wave 1, a FAIL gate in the queue after verification
failed, completed; plus the verdict history and the dialogs of the lifecycle keys.

Each phase is built in tmp with the protocol functions (tests/support/plan_world.py: ticking
clock from a fixed moment, ULIDs from a counter); the app runs at a fixed clock, no
watcher, no animation, no cursor blink, a fixed size. Regenerate with
``pytest tests/tui/test_plan_snapshots.py --snapshot-update`` and look at every changed
SVG as PNG before committing it.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from support import plan_world as world
from support.pilot_helpers import SIZE, showing, until
from test_snapshots import prepared

from teamdeck.clock import fixed_clock
from teamdeck.store.workspace import Workspace
from teamdeck.tui.app import TeamdeckApp, create_app
from teamdeck.tui.dialogs.transition import TransitionScreen
from teamdeck.tui.dialogs.verdicts import VerdictsScreen
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

NOW = world.START + timedelta(hours=1)


def phase_app(tmp_path: Path, phase: str) -> TeamdeckApp:
    """The app on the plan in ``phase``, at a fixed "now"."""
    root = tmp_path / "ws"
    world.build(root, phase)
    ws = Workspace.at(root, clock=fixed_clock(NOW), actor="human:tester")
    world.steady_verdicts(ws)
    app = create_app(ws, watch=False, cursor_blink=False)
    app.animation_level = "none"
    return app


async def show(pilot, app: TeamdeckApp, panel: str, list_id: str, key: str) -> None:
    await pilot.press(panel)
    assert app.main.query_one(list_id).select_key(key), key
    await pilot.pause()


@pytest.mark.parametrize("phase", world.PHASES)
def test_plan_view_in_each_phase(tmp_path: Path, snap_compare, phase: str) -> None:
    app = phase_app(tmp_path, phase)

    async def scenario(pilot) -> None:
        await show(pilot, app, "6", "#plan-list", "release")

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_plan_approval_in_the_decisions_queue(tmp_path: Path, snap_compare) -> None:
    app = phase_app(tmp_path, "imported")

    async def scenario(pilot) -> None:
        await show(pilot, app, "1", "#gate-list", "task:release:plan-approval")

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_fail_gate_in_the_queue_with_retry_and_give_up(tmp_path: Path, snap_compare) -> None:
    app = phase_app(tmp_path, "failed")

    async def scenario(pilot) -> None:
        gate = next(gate for gate in app.snapshot.decisions if gate.subkind == "verification-failed")
        await show(pilot, app, "1", "#gate-list", gate.key)

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_retry_dialog_of_a_fail_gate(tmp_path: Path, snap_compare) -> None:
    app = phase_app(tmp_path, "failed")

    async def scenario(pilot) -> None:
        gate = next(gate for gate in app.snapshot.decisions if gate.subkind == "verification-failed")
        await show(pilot, app, "1", "#gate-list", gate.key)
        await pilot.press("a")
        await until(pilot, lambda: showing(app, ConfirmBar), "the retry dialog")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_verdict_history_with_evidence(tmp_path: Path, snap_compare) -> None:
    app = phase_app(tmp_path, "completed")

    async def scenario(pilot) -> None:
        await show(pilot, app, "4", "#task-list", world.IDS["Package"])
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, VerdictsScreen), "the verdict history")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_transition_picker(tmp_path: Path, snap_compare) -> None:
    app = phase_app(tmp_path, "executing")

    async def scenario(pilot) -> None:
        await show(pilot, app, "4", "#task-list", world.IDS["Schema"])
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, TransitionScreen), "the picker")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))
