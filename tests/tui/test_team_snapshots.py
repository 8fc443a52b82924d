"""Snapshots of the team requests that became decisions: a permission
request in the queue and its dialog, a stuck shutdown in the queue, and an inbox whose
idle notifications are folded, then expanded.

The team is built in tmp with the protocol functions at a moving clock that stops
before the app starts; the app runs at that fixed moment, no watcher, no animation, no
cursor blink, a fixed size. Regenerate with ``pytest tests/tui/test_team_snapshots.py
--snapshot-update`` and look at every changed SVG as PNG before committing it.
"""

from __future__ import annotations

from pathlib import Path

from support import decision_world as world
from support.pilot_helpers import SIZE, showing, until
from test_snapshots import prepared

from teamdeck.clock import fixed_clock
from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.store.workspace import Workspace
from teamdeck.tui.app import TeamdeckApp, create_app
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

PERMISSION = "permission:alpha:bob:perm-7"


def team_app(tmp_path: Path) -> TeamdeckApp:
    """Team alpha five minutes into its life: alice was asked to shut down 3 minutes ago
    and never answered; bob asks to run a command; bob went idle seven times in a row."""
    root = tmp_path / "ws"
    root.mkdir()
    clock = world.MovableClock()
    ws = Workspace.at(root, clock=clock, actor="human:tester")
    world.team(ws)
    send_message(ws, "alpha", "bob", "Run the test suite and report", summary="run the tests")
    clock.advance(60)
    request_shutdown(ws, "alpha", "alice", reason="work complete")
    for _ in range(7):
        clock.advance(20)
        world.idle(ws, "alpha", "bob")
    clock.advance(20)
    world.ask_permission(
        ws,
        "alpha",
        "bob",
        "perm-7",
        tool_input={"command": "rm -rf build/ && npm ci\x1b[31m", "timeout": 120000},
        description="Clean build and reinstall",
    )
    clock.advance(80)
    app = create_app(Workspace.at(root, clock=fixed_clock(clock.now), actor="human:tester"), watch=False)
    app.cursor_blink = False
    app.animation_level = "none"
    return app


def test_permission_request_in_the_queue(tmp_path: Path, snap_compare) -> None:
    app = team_app(tmp_path)

    async def scenario(pilot) -> None:
        assert app.main.query_one("#gate-list").select_key(PERMISSION)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_deny_dialog_of_a_permission_request(tmp_path: Path, snap_compare) -> None:
    app = team_app(tmp_path)

    async def scenario(pilot) -> None:
        assert app.main.query_one("#gate-list").select_key(PERMISSION)
        await pilot.press("r")
        await until(pilot, lambda: showing(app, ConfirmBar), "the deny dialog")

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_stuck_shutdown_in_the_queue(tmp_path: Path, snap_compare) -> None:
    app = team_app(tmp_path)

    async def scenario(pilot) -> None:
        [stuck] = [gate for gate in app.snapshot.decisions if gate.kind == "shutdown-stuck"]
        assert app.main.query_one("#gate-list").select_key(stuck.key)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_folded_idles_in_the_inbox(tmp_path: Path, snap_compare) -> None:
    app = team_app(tmp_path)

    async def scenario(pilot) -> None:
        await app.main.open_inbox("alpha/team-lead")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_folded_idles_expanded(tmp_path: Path, snap_compare) -> None:
    app = team_app(tmp_path)

    async def scenario(pilot) -> None:
        await app.main.open_inbox("alpha/team-lead")
        await pilot.pause()
        assert app.main.query_one("#inbox-list").select_key("0")
        await pilot.press("enter")
        await until(pilot, lambda: len(app.main.query_one("#inbox-list").rows) == 9, "the fold expanded")

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))
