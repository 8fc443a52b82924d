"""Wording a new user tripped on: "rejectd", "shutdown requested
from" a member (it is asked *of* it: sent to), ``⏎ Read all`` (read as "mark all
read"), the compact overview's ``15m`` members beside ``45m`` minutes, and a palette
whose preselected first command was Quit."""

from __future__ import annotations

import pytest
from support.pilot_helpers import make_app, palette_gathered, run, type_text, until

from teamdeck.tui import registry
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.widgets.overview_line import OverviewLine


def _notices(app) -> list[str]:
    return [str(notice.message) for notice in app._notifications]


def test_a_rejected_gate_says_rejected(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        assert app.main.query_one(DecisionList).select_key("task:t1:g-w1-1")
        await pilot.press("r")
        await until(pilot, lambda: app.main.confirm_bar.asking, "the confirm bar")
        await type_text(pilot, "no")  # a rejection needs a note
        await pilot.press("enter")
        await until(pilot, lambda: any("g-w1-1" in notice for notice in _notices(app)), "the notice")
        notice = next(notice for notice in _notices(app) if "g-w1-1" in notice)
        assert "rejected" in notice and "rejectd" not in notice

    run(app, scenario)


def test_a_shutdown_request_is_sent_to_the_member(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: roster.select_key("alpha/alice"), "alice in the roster")
        await pilot.press("s")
        await until(pilot, lambda: app.main.confirm_bar.asking, "the confirm bar")
        await pilot.press("enter")
        await until(pilot, lambda: any("alice" in notice for notice in _notices(app)), "the notice")
        notice = next(notice for notice in _notices(app) if "alice" in notice)
        assert "sent to alice" in notice and "from alice" not in notice

    run(app, scenario)


def test_the_inbox_enter_key_reads_one_message() -> None:
    assert registry.BY_ID["message-read"].label == "Read"


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_the_compact_overview_has_no_count_that_reads_as_minutes(world, size) -> None:
    app = make_app(world)

    async def scenario(pilot):
        line = app.main.query_one(OverviewLine)
        await until(pilot, lambda: "unread" in line.plain, "the overview")
        # Every "<n>m" on the line is an age (the oldest decision's), never a member count.
        import re

        for match in re.finditer(r"(\S*)\b(\d+)m\b", line.plain):
            assert "oldest" in line.plain[max(0, match.start() - 8) : match.start()], line.plain

    run(app, scenario, size)


def test_the_palette_does_not_preselect_quit(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("ctrl+p")
        await until(pilot, lambda: type(app.screen).__name__ == "CommandPalette", "the command palette")
        from textual.command import CommandList

        commands = app.screen.query_one(CommandList)
        await until(pilot, lambda: palette_gathered(app) and commands.option_count > 5, "the commands")
        first = str(commands.get_option_at_index(commands.highlighted or 0).prompt)
        assert "quit" not in first.lower(), first
        assert first.startswith("Read decision"), first

    run(app, scenario)
