"""The roster and the overview line on real, months-old Claude Code teams: members
quiet for ``staleAfterSeconds`` read ``stale`` (not ``working``), the overview counts
them apart from active and idle, and ``hideEndedTeams`` leaves ended teams out."""

from __future__ import annotations

import pytest
from support.pilot_helpers import lines_of, make_app, run, until

from teamdeck.store.workspace import Workspace
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.widgets.overview_line import OverviewLine


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_stale_members_say_so(capture: Workspace, size: tuple[int, int]) -> None:
    app = make_app(capture)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: any("task-analyst" in line for line in lines_of(roster)), "the roster")
        rows = [line for line in lines_of(roster) if "analy" in line or "team-lead" in line]
        assert len(rows) == 5 and all(" stale " in row for row in rows), rows
        assert not any("working" in row.split("stale", 1)[0] for row in rows)
        line = app.main.query_one(OverviewLine).plain
        assert "0 active" in line and "5 stale" in line, line

    run(app, scenario, size)


def test_hide_ended_teams_empties_the_roster_of_them(capture: Workspace) -> None:
    (capture.root / ".teamdeck.yaml").write_text("hideEndedTeams: true\n")
    app = make_app(capture)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: "1 ended team(s) hidden" in "".join(lines_of(roster)), "the roster's note")
        assert not any("analy" in line for line in lines_of(roster))

    run(app, scenario)
