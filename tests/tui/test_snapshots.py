"""Snapshots (pytest-textual-snapshot) of every panel and dialog on a copy of the demo
workspace. Deterministic: the demo's fixed clock, no watcher, animations off, no
cursor blink, a fixed terminal size; every wait polls a condition with a deadline.

Regenerate with ``pytest tests/tui/test_snapshots.py --snapshot-update`` and look at
every changed SVG before committing it (``rsvg-convert -o x.png x.svg``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from support.pilot_helpers import SIZE, palette_gathered, showing, until
from textual.widgets import Input, Markdown, TextArea

from teamdeck.clock import fixed_clock
from teamdeck.sim.clock import DEMO_NOW
from teamdeck.store.workspace import Workspace
from teamdeck.tui.app import TeamdeckApp, create_app
from teamdeck.tui.dialogs.compose import ComposeScreen
from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.screens.help import HelpScreen
from teamdeck.tui.screens.main import MainScreen
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

SMALL, LARGE = (80, 24), (250, 70)
TASK_GATE = "task:payment-retry:g-db-migrator-1"
LEAD = "checkout-revamp/team-lead"
Scenario = Callable[[Any], Awaitable[None]]


def demo_app(demo: Path, *, read_only: bool = False) -> TeamdeckApp:
    """The app on the demo copy at the demo's "now", not watching, not animating."""
    ws = Workspace.at(demo, clock=fixed_clock(DEMO_NOW), actor="human:tester")
    app = create_app(ws, watch=False, read_only=read_only)
    app.animation_level = "none"
    return app


def prepared(app: TeamdeckApp, scenario: Scenario | None = None) -> Scenario:
    """A ``run_before`` for snap_compare: wait for the first snapshot, run ``scenario``,
    then stop every text cursor from blinking and wait for summaries to be drawn."""

    async def run_before(pilot) -> None:
        await until(pilot, lambda: app.main.ready and app.settled, "the first snapshot")
        await pilot.pause()
        if scenario is not None:
            await scenario(pilot)
        await steady(pilot, app)

    return run_before


async def steady(pilot, app: TeamdeckApp) -> None:
    """No blinking cursor anywhere; the screen settled."""
    for widget in app.screen.query("Input, TextArea"):
        assert isinstance(widget, (Input, TextArea))
        widget.cursor_blink = False
    await pilot.pause()


async def select(pilot, app: TeamdeckApp, panel: str, list_id: str, key: str) -> None:
    """Show ``panel`` (its number key) and put the cursor on row ``key`` of its list."""
    await pilot.press(str(("gates", "roster", "inbox", "tasks", "events").index(panel) + 1))
    assert app.main.query_one(list_id).select_key(key), key
    await pilot.pause()


async def open_screen(pilot, app: TeamdeckApp, key: str, screen_type: type) -> None:
    await pilot.press(key)
    await until(pilot, lambda: showing(app, screen_type), screen_type.__name__)
    await pilot.pause()


# --- panels ---------------------------------------------------------------------------


def test_gate_queue_and_overview(demo: Path, snap_compare) -> None:
    app = demo_app(demo)
    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app))


def test_roster_with_member_detail(demo: Path, snap_compare) -> None:
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await select(pilot, app, "roster", "#roster-list", "checkout-revamp/ui-dev")

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_inbox_of_a_member(demo: Path, snap_compare) -> None:
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await select(pilot, app, "roster", "#roster-list", LEAD)
        await pilot.press("enter")
        await until(pilot, lambda: app.main.current_panel == "inbox", "the inbox")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_tasks_with_joined_summary(demo: Path, snap_compare) -> None:
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await select(pilot, app, "tasks", "#task-list", "payment-retry")
        summary = app.main.query_one("#task-summary", Markdown)
        await until(pilot, lambda: "payment-retry" in summary.source, "the joined summary")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_events_filtered(demo: Path, snap_compare) -> None:
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await pilot.press("5", "slash", *"gate")
        await until(pilot, lambda: app.main.query_one("#events-panel").query_text == "gate", "the filter")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


# --- dialogs ----------------------------------------------------------------------------


DIALOGS = {
    # name: (panel, list, row, key that opens it, the dialog, text typed into it)
    "gate_detail": ("gates", "#gate-list", TASK_GATE, "enter", TextScreen, ""),
    "approve": ("gates", "#gate-list", TASK_GATE, "a", ConfirmBar, ""),
    "message": ("roster", "#roster-list", "checkout-revamp/api-dev", "m", ComposeScreen, "guest checkout"),
    "broadcast": ("roster", "#roster-list", "perf-audit/profiler", "b", ComposeScreen, ""),
    "shutdown": ("roster", "#roster-list", "perf-audit/profiler", "s", ConfirmBar, ""),
}


@pytest.mark.parametrize("name", list(DIALOGS))
def test_dialog(demo: Path, snap_compare, name: str) -> None:
    panel, list_id, row, key, screen_type, typed = DIALOGS[name]
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await select(pilot, app, panel, list_id, row)
        await open_screen(pilot, app, key, screen_type)
        if typed:
            await pilot.press(*typed)

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_reject_dialog_asks_for_the_note(demo: Path, snap_compare) -> None:
    """Enter without a note: the dialog stays and says the note is required."""
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await select(pilot, app, "gates", "#gate-list", TASK_GATE)
        await open_screen(pilot, app, "r", ConfirmBar)
        await pilot.press("enter")
        await pilot.pause()
        assert showing(app, ConfirmBar)

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_help(demo: Path, snap_compare) -> None:
    """Opened on a fixed path: the copy's own changes from run to run (that ``?`` shows
    the app's workspace is tested in test_actions.py)."""
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        app.push_screen(HelpScreen("/home/dev/teamdeck-demo-x1y2z3/demo-workspace"))
        await until(pilot, lambda: showing(app, HelpScreen), "the help screen")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_command_palette(demo: Path, snap_compare) -> None:
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await pilot.press("ctrl+p")
        await until(pilot, lambda: type(app.screen).__name__ == "CommandPalette", "the command palette")
        await pilot.press(*"approve")
        await until(
            pilot,
            lambda: palette_gathered(app) and app.screen.query_one("CommandList").option_count >= 3,
            "the palette's matches",
        )

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


# --- modes and sizes ----------------------------------------------------------------------


def test_read_only(demo: Path, snap_compare) -> None:
    app = demo_app(demo, read_only=True)
    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app))


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "250x70"])
def test_sizes(demo: Path, snap_compare, size: tuple[int, int]) -> None:
    app = demo_app(demo)
    assert snap_compare(app, terminal_size=size, run_before=prepared(app))


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "250x70"])
def test_roster_sizes(demo: Path, snap_compare, size: tuple[int, int]) -> None:
    app = demo_app(demo)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        await until(pilot, lambda: app.main.current_panel == "roster" and isinstance(app.screen, MainScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=prepared(app, scenario))
