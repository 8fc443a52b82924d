"""What ``teamdeck tui`` shows of a real Claude Code 2.1.332 team after the client
drained every inbox (tests/fixtures/claude-code/2.1.332/in-process-team): the run is
replayed version by version through the live view, which records what it reads (as
the TUI does); then the TUI opens on the workspace, whose inbox files are all ``[]``.

The roster must show bob idle (its idle notification was drained long ago), alice gone
(she shut down: the client removed her), and the lead's inbox what alice and bob said.
Regenerate with ``--snapshot-update`` and look at the SVG before committing it."""

from __future__ import annotations

from pathlib import Path

from support.claude_team_recorder import live_replay, load_history, until_first
from support.locations import FIXTURES
from support.pilot_helpers import SIZE
from test_snapshots import prepared

from teamdeck.tui.app import TeamdeckApp, create_app
from teamdeck.tui.panels.roster.roster_list import RosterList

HISTORY = FIXTURES / "2.1.332" / "in-process-team" / "history.jsonl"


def drained_team_app(tmp_path: Path) -> TeamdeckApp:
    """The app on the run replayed up to teamdeck's first write (the client's own work)."""
    ws, _snapshot = live_replay(until_first(load_history(HISTORY), "messages.jsonl"), tmp_path / "claude")
    app = create_app(ws, watch=False, cursor_blink=False)
    app.animation_level = "none"
    return app


def test_a_drained_claude_code_team_in_the_roster(tmp_path: Path, snap_compare) -> None:
    app = drained_team_app(tmp_path)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        team = app.snapshot.teams[0].name
        assert roster.select_key(f"{team}/team-lead")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_the_leads_drained_inbox_is_still_shown(tmp_path: Path, snap_compare) -> None:
    app = drained_team_app(tmp_path)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        assert app.main.query_one(RosterList).select_key(f"{app.snapshot.teams[0].name}/team-lead")
        await pilot.press("3")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))
