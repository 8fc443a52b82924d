"""Keyboard habits: ``j``/``k`` move in every list (the join is
``J``); a decision is approved or rejected from its read view; the message dialog says
who the message is from; ``i`` hides the idle notifications of an inbox."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import decision_world as world
from support.pilot_helpers import busy, make_app, run, showing, until

from teamdeck.protocol.task.taskfile import load_task
from teamdeck.store.workspace import Workspace
from teamdeck.tui import registry
from teamdeck.tui.dialogs.compose import ComposeScreen
from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.inbox.inbox_list import InboxList
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

SIZES = [(80, 24), (120, 36)]


@pytest.mark.parametrize("size", SIZES)
def test_j_and_k_move_in_every_list(world, size) -> None:
    app = make_app(world)

    async def scenario(pilot):
        for panel in ("gates", "roster"):
            await pilot.press(str(list(registry.PANEL_TITLES).index(panel) + 1))
            listing = app.main.panel(panel).list
            await until(pilot, lambda listing=listing: len(listing.rows) >= 2, f"the {panel} list")
            listing.cursor = 0
            await pilot.press("j")
            assert listing.cursor == 1, panel
            await pilot.press("k")
            assert listing.cursor == 0, panel

    run(app, scenario, size)


def test_join_is_capital_j() -> None:
    assert registry.BY_ID["task-join"].key == "J"


@pytest.mark.parametrize("size", SIZES)
def test_approve_from_the_read_view(world, size) -> None:
    app = make_app(world)

    async def scenario(pilot):
        assert app.main.query_one(DecisionList).select_key("task:t1:g-w1-1")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the read view")
        await pilot.press("a")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm bar")
        await pilot.press("enter")
        await until(pilot, lambda: load_task(world, "t1").gates[0].state == "approved", "the approval")
        await until(pilot, lambda: not busy(app), "the action")

    run(app, scenario, size)


def test_a_read_only_read_view_offers_no_answer(world) -> None:
    app = make_app(world, read_only=True)

    async def scenario(pilot):
        assert app.main.query_one(DecisionList).select_key("task:t1:g-w1-1")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the read view")
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)  # nothing asked, nothing written
        assert load_task(world, "t1").gates[0].state == "blocked"

    run(app, scenario)


def test_the_message_dialog_says_who_sends(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: roster.select_key("alpha/alice"), "alice")
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the message dialog")
        lead = app.snapshot.team("alpha").lead
        assert "from " + lead in str(app.screen.query_one("#sender").content)

    run(app, scenario)


@pytest.fixture
def team_ws(tmp_path: Path) -> Workspace:
    return world.team_workspace(tmp_path / "ws")


@pytest.mark.parametrize("size", SIZES)
def test_i_hides_idle_notifications_in_the_inbox(team_ws, size) -> None:
    world.idle(team_ws, "alpha", "bob")
    team_ws.clock.advance(5)
    from teamdeck.protocol.team.messaging.sending import send_message

    send_message(team_ws, "alpha", "team-lead", "the parser is done", summary="done", sender="alice")
    team_ws.clock.advance(5)
    world.idle(team_ws, "alpha", "alice")
    app = make_app(team_ws)

    async def scenario(pilot):
        await app.main.open_inbox("alpha/team-lead")
        inbox = app.main.query_one(InboxList)
        await until(pilot, lambda: len(inbox.rows) == 3, "the inbox")
        await pilot.press("i")
        await until(pilot, lambda: len(inbox.rows) == 1, "the idle notifications hidden")
        assert inbox.by_key[inbox.rows[0].key].summary == "done"
        assert "2 idle notification(s) hidden" in str(app.main.query_one("#inbox-title").content)
        await pilot.press("i")
        await until(pilot, lambda: len(inbox.rows) == 3, "shown again")

    run(app, scenario, size)


def test_the_inbox_title_counts_the_rows_it_shows(team_ws) -> None:
    """The title counts what the list shows: hiding the idle notifications or a filter
    makes it "N shown of M row(s)"; an open fold's notifications are rows it counts."""
    from teamdeck.protocol.team.messaging.sending import send_message

    for _ in range(2):
        world.idle(team_ws, "alpha", "bob")
        team_ws.clock.advance(5)
    send_message(team_ws, "alpha", "team-lead", "the parser is done", summary="done", sender="alice")
    app = make_app(team_ws)

    def title() -> str:
        return str(app.main.query_one("#inbox-title").content)

    async def scenario(pilot):
        await app.main.open_inbox("alpha/team-lead")
        inbox = app.main.query_one(InboxList)
        await until(pilot, lambda: len(inbox.rows) == 2, "the inbox: bob's two idles folded, alice's message")
        assert " · 2 row(s) · " in title()
        await pilot.press("i")
        await until(pilot, lambda: len(inbox.rows) == 1, "the idle notifications hidden")
        assert " · 1 shown of 2 row(s) · " in title()
        await pilot.press("i")
        await until(pilot, lambda: len(inbox.rows) == 2, "shown again")
        assert inbox.select_key(inbox.rows[0].key)
        await pilot.press("e")
        await until(pilot, lambda: len(inbox.rows) == 4, "the fold open")
        assert " · 4 row(s) · " in title()
        await pilot.press("slash", *"done")
        await until(pilot, lambda: len(inbox.rows) == 1, "only alice's message")
        assert " · 1 shown of 4 row(s) · " in title()
        await pilot.press("escape")
        await until(pilot, lambda: len(inbox.rows) == 4, "every row again")
        assert " · 4 row(s) · " in title()

    run(app, scenario)


def _notices(app) -> list[str]:
    return [str(notice.message) for notice in app._notifications]


def test_a_greyed_key_pressed_says_why(world) -> None:
    app = make_app(world, read_only=True)

    async def scenario(pilot):
        assert app.main.query_one(DecisionList).select_key("task:t1:g-w1-1")
        await pilot.press("a")
        await until(pilot, lambda: any(n.startswith("Approve: writes are off") for n in _notices(app)), "the why")
        assert not showing(app, ConfirmBar)

    run(app, scenario)


def test_a_greyed_roster_key_names_the_member_and_the_reason(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: roster.select_key("alpha/alice"), "alice")
        await pilot.pause()
        await pilot.press("p")
        await until(
            pilot,
            lambda: "Approve plan: alice has no plan waiting for approval" in _notices(app),
            "the reason",
        )
        assert not showing(app, ConfirmBar)

    run(app, scenario)


@pytest.mark.parametrize("size", SIZES)
def test_slash_filters_every_panel(world, size) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: len(roster.rows) >= 3, "the roster")
        await pilot.press("slash", "b", "o", "b")
        await until(pilot, lambda: [row.key for row in roster.rows] == ["alpha/bob"], "only bob")
        await pilot.press("enter")  # back to the list, the filter kept
        assert app.focused is roster and len(roster.rows) == 1
        await pilot.press("escape")  # clears it
        await until(pilot, lambda: len(roster.rows) >= 3, "every member again")
        await pilot.press("1", "slash", *"w1")
        gates = app.main.query_one(DecisionList)
        await until(pilot, lambda: gates.rows and all("w1" in row.key for row in gates.rows), "the w1 gates")

    run(app, scenario, size)
