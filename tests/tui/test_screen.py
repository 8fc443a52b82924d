"""What the screen shows: live updates from files written outside, hostile text made
harmless (S1-S7), and the layout from 80x24 to 250x70."""

from __future__ import annotations

import pytest
from support.pilot_helpers import make_app, run, until
from textual.widgets import TabbedContent

from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.inbox.inbox_list import InboxList
from teamdeck.tui.panels.inbox.panel import InboxPanel
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.widgets.overview_line import OverviewLine

HOSTILE = (
    "\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[2J\x9b31m[@click=app.quit]click me[/] "
    "[bold]x[/bold] [/bold] stray [link='https://evil.example']docs[/link] \u202eevil\rover"
)


def _lines(widget) -> list[str]:
    return [widget.render_line(y).text for y in range(widget.size.height)]


def test_live_update_from_a_file_written_outside(world) -> None:
    app = make_app(world, watch=True)

    async def scenario(pilot):
        await pilot.press("2")
        before = app.snapshot
        assert app.snapshot.member("alpha/alice").unread == 1
        send_message(world, "alpha", "alice", "one more thing", summary="more")
        await until(
            pilot,
            lambda: app.snapshot is not before and app.snapshot.member("alpha/alice").unread == 2,
            "the snapshot with the new message",
        )
        row = next(row for row in app.main.query_one(RosterList).rows if row.key == "alpha/alice")
        assert any(cell.text == "2 new" for cell in row.cells)
        await pilot.pause()
        lines = _lines(app.main.query_one(RosterList))
        assert any("alice" in line and "2 new" in line for line in lines), lines

    run(app, scenario)


def test_s1_s7_hostile_message_is_shown_harmlessly(world) -> None:
    send_message(world, "alpha", "alice", HOSTILE * 3 + "y" * 50_000, summary=HOSTILE)
    app = make_app(world)

    async def scenario(pilot):
        await app.main.open_inbox("alpha/alice")
        panel, inbox = app.main.query_one(InboxPanel), app.main.query_one(InboxList)
        # Wait for alice's inbox itself (both of her messages, laid out), not for any two rows:
        # the panel first draws whichever member it had, and under load a frame may show that.
        await until(
            pilot,
            lambda: panel.member_key == "alpha/alice" and set(inbox.by_key) == {"0", "1"} and inbox.size.height >= 2,
            "alice's inbox on screen",
        )
        assert inbox.select_key("1")
        await pilot.pause()
        text = "\n".join(_lines(inbox))
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text and "\r" not in text
        assert "[@click=app.quit]click me[/]" in text
        # A click on the row that carries the fake action link runs nothing.
        await pilot.click(InboxList, offset=(40, inbox.cursor))
        await pilot.pause()
        assert app.is_running
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        body = str(app.screen.query_one("#text-body").render())
        assert "\x1b" not in body and "\r" not in body and "truncated" in body and "<U+202E>" in body
        await pilot.press("v")
        raw = str(app.screen.query_one("#text-body").render())
        assert "\\x1b]52" in raw and "\x1b" not in raw
        svg = app.export_screenshot()
        assert not any(char in svg for char in ("\x1b", "\x9b", "\x07", "\u202e"))

    run(app, scenario)


def test_s4_markup_in_a_gate_question_does_not_crash(ws) -> None:
    from teamdeck.protocol.task.create import create_task
    from teamdeck.protocol.task.join import join_task
    from teamdeck.sim.outputs import write_final_output

    create_task(ws, "t9", "[bold]title[/]")
    write_final_output(
        ws, "t9", "w1", {"status": "blocked", "summary": "[/bold] stray", "questions": ["[$x] [[a]] [bold"]}
    )
    join_task(ws, "t9")
    app = make_app(ws)

    async def scenario(pilot):
        await pilot.pause()
        detail = str(app.main.query_one("#gate-detail-text").render())
        assert "[$x] [[a]] [bold" in detail
        assert any("[/bold] stray" in line for line in _lines(app.main.query_one(DecisionList)))

    run(app, scenario)


@pytest.mark.parametrize("size", [(80, 24), (120, 36), (250, 70)])
def test_layout_from_small_to_large(world, size) -> None:
    app = make_app(world)

    async def scenario(pilot):
        overview = app.main.query_one(OverviewLine).plain
        assert "waiting" in overview and "unread" in overview
        gates = app.main.query_one(DecisionList)
        assert gates.size.width == size[0] and gates.size.height >= 3
        assert sum(1 for line in _lines(gates) if line.strip()) == 2
        for key in "2345":
            await pilot.press(key)
            await pilot.pause()

    run(app, scenario, size=size)


def test_a_late_first_activation_of_the_tabs_does_not_undo_a_panel_chosen_in_code(world) -> None:
    """The tabs activate panel 1 once when they mount; if that message arrives after a
    panel was chosen in code (a key pressed in the first instant of a start), the
    chosen panel keeps the focus, so its keys do not go to the decision list."""
    app = make_app(world)

    async def scenario(pilot):
        tabs = app.main.query_one(TabbedContent)
        await app.main.action_panel("roster")
        tabs.post_message(TabbedContent.TabActivated(tabs, tabs.get_tab("gates")))
        await pilot.pause()
        assert app.main.current_panel == "roster"
        assert isinstance(app.focused, RosterList)

    run(app, scenario)


def test_a_snapshot_that_arrives_while_the_app_closes_is_dropped(world) -> None:
    """Quitting while a change is being read: the refresher's last snapshot reaches an
    app whose screens are already gone; it is dropped, not drawn (it raised, and the
    app ended with a traceback)."""
    from teamdeck.tui.messages import SnapshotChanged
    from teamdeck.view.refresh.build import build_snapshot

    app = make_app(world)
    run(app, lambda pilot: pilot.pause())
    late = build_snapshot(world)
    app._newest = late
    app._show(SnapshotChanged(late))  # as the message is handled once the app has stopped
    assert app.snapshot is not late
