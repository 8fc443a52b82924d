"""Snapshots of the frames Claude Code 2.1.332 added, on the schema-built session team
(tests/fixtures/claude-code/2.1.332/schema-frames, FORMAT.md): the open sandbox host
request in the decision queue, the roster with a failed turn and a terminated teammate,
the lead's inbox with every frame (an unknown one raw), and a team whose directory is
gone, shown ended. Regenerate with ``--snapshot-update`` and look at every changed SVG.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.locations import FIXTURES
from support.pilot_helpers import SIZE, until
from test_snapshots import prepared, select

from teamdeck.clock import fixed_clock, parse_iso
from teamdeck.store.workspace import Workspace
from teamdeck.tui.app import TeamdeckApp, create_app
from teamdeck.view.refresh.build import build_snapshot

TEAM = "session-5f3a9c1e"
NOW = parse_iso("2026-11-26T16:21:00Z")


@pytest.fixture
def frames_ws(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "2.1.332" / "schema-frames", root)
    return root


def app_on(root: Path) -> TeamdeckApp:
    app = create_app(Workspace.at(root, clock=fixed_clock(NOW), actor="human:tester"), watch=False)
    app.animation_level = "none"
    return app


def test_a_sandbox_host_request_in_the_queue(frames_ws: Path, snap_compare) -> None:
    app = app_on(frames_ws)

    async def scenario(pilot) -> None:
        await select(pilot, app, "gates", "#gate-list", f"sandbox:{TEAM}:bob:sandbox-1795712430512-k3v9q2x")

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_the_roster_with_a_failed_turn_and_a_terminated_teammate(frames_ws: Path, snap_compare) -> None:
    app = app_on(frames_ws)

    async def scenario(pilot) -> None:
        await select(pilot, app, "roster", "#roster-list", f"{TEAM}/carol")

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_the_leads_inbox_with_every_frame(frames_ws: Path, snap_compare) -> None:
    app = app_on(frames_ws)

    async def scenario(pilot) -> None:
        await select(pilot, app, "roster", "#roster-list", f"{TEAM}/team-lead")
        await pilot.press("enter")
        await until(pilot, lambda: app.main.current_panel == "inbox", "the inbox")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_an_ended_session_team(frames_ws: Path, snap_compare) -> None:
    build_snapshot(Workspace.at(frames_ws), record=True)  # a live view saw the team (archive, record)
    shutil.rmtree(frames_ws / "teams" / TEAM)  # the session ended
    app = app_on(frames_ws)

    async def scenario(pilot) -> None:
        await select(pilot, app, "roster", "#roster-list", f"{TEAM}/bob")

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))
