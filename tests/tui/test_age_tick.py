"""Ages tick: on a quiet workspace the queue's ages, the roster's
"last" and the overview's "oldest" follow the clock once a second, with no file read
again; and the TUI and ``teamdeck status`` show the same age at the same instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from support.decision_world import MovableClock
from support.pilot_helpers import make_app, run, until

from teamdeck.cli.status import render_status
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.widgets.overview_line import OverviewLine
from teamdeck.view.figures.overview import age
from teamdeck.view.refresh.build import build_snapshot

SIZES = [(80, 24), (120, 36)]


def ages(line_list) -> list[str]:
    return [row.cells[0].text for row in line_list.rows]


@pytest.mark.parametrize("size", SIZES)
def test_the_queue_and_the_overview_age_without_any_change(world, size) -> None:
    clock = MovableClock(world.clock())
    world = world._replace(clock=clock)
    app = make_app(world)

    async def scenario(pilot):
        gates = app.main.query_one(DecisionList)
        before, snapshot = ages(gates), app.snapshot
        overview = app.main.query_one(OverviewLine)
        clock.advance(3 * 60)
        await until(pilot, lambda: ages(gates) != before, "the queue's ages to tick")
        assert app.snapshot is snapshot  # nothing read again: only the clock moved
        oldest = age(snapshot.decisions[0].created_at, clock())
        assert ages(gates)[0] == oldest
        await until(pilot, lambda: f"oldest {oldest}" in overview.plain, "the overview's oldest to tick")

    run(app, scenario, size)


@pytest.mark.parametrize("size", SIZES)
def test_the_roster_last_column_ticks(world, size) -> None:
    clock = MovableClock(world.clock())
    world = world._replace(clock=clock)
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: bool(roster.rows), "the roster")
        last = [row.cells[4].text for row in roster.rows]
        clock.advance(2 * 3600)
        await until(pilot, lambda: [row.cells[4].text for row in roster.rows] != last, "the roster's last to tick")
        assert any(text.endswith("h") for text in (row.cells[4].text for row in roster.rows))

    run(app, scenario, size)


def test_the_tui_and_status_agree_at_the_same_instant(world) -> None:
    """At a moment between whole seconds the TUI (which ages at the second of its tick)
    and ``status`` (at the exact moment of its read) said 4m and 5m."""
    created = datetime.fromisoformat(build_snapshot(world).decisions[0].created_at.replace("Z", "+00:00"))
    moment = created.replace(microsecond=0) + timedelta(minutes=5, microseconds=(created.microsecond - 1) % 1_000_000)
    clock = MovableClock(moment)
    world = world._replace(clock=clock)
    app = make_app(world)

    async def scenario(pilot):
        app.main.tick_ages()
        status = render_status(build_snapshot(world))
        shown = app.main.query_one(OverviewLine).plain
        oldest = age(app.snapshot.decisions[0].created_at, clock())
        assert f"oldest {oldest}" in status
        assert f"oldest {oldest}" in shown
        assert ages(app.main.query_one(DecisionList))[0] == oldest

    run(app, scenario)


@pytest.mark.parametrize("fraction", [0, 1, 200_000, 999_999])
def test_an_age_is_the_same_at_the_exact_moment_and_at_its_whole_second(fraction) -> None:
    since = "2026-03-01T12:00:00.500Z"
    for seconds in (59, 60, 299, 300, 3599, 3600):
        now = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC) + timedelta(seconds=seconds, microseconds=fraction)
        assert age(since, now) == age(since, now.replace(microsecond=0))
    assert age(since, datetime(2026, 3, 1, 12, 5, 0, 100_000, tzinfo=UTC)) == "5m"
