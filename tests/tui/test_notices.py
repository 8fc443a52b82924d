"""Notices on screen: on a line of their own (never over the detail pane or what the
person types); a quick run of actions keeps only the newest information notices, and
warnings and errors are never pushed out."""

from __future__ import annotations

import asyncio
import re

import pytest
from support.pilot_helpers import SIZE, make_app, palette_gathered, run, type_text, until
from textual.content import Content
from textual.notifications import Notification

from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.tui.app import MAX_NOTICES
from teamdeck.tui.panels.decisions import panel as decisions_panel
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.screens.help import HelpScreen
from teamdeck.tui.screens.notices import NoticesScreen


def test_the_oldest_information_notices_go_first_and_errors_stay(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        app.notify("it broke", severity="error", markup=False)
        for number in range(MAX_NOTICES + 3):
            app.notify(f"done {number}", markup=False)
        await until(pilot, lambda: any(n.message == f"done {MAX_NOTICES + 2}" for n in app._notifications))
        shown = [(notice.severity, notice.message) for notice in app._notifications]
        assert len(shown) == MAX_NOTICES
        assert shown[0] == ("error", "it broke")
        assert [message for _, message in shown[1:]] == [f"done {n}" for n in range(4, MAX_NOTICES + 3)]

    run(app, scenario)


def test_notices_are_on_their_own_line_never_toasts(world) -> None:
    """A run of notices: the notice line shows the newest with a count of the others;
    no toast is ever mounted (toasts covered the detail pane)."""
    app = make_app(world)

    async def main() -> None:
        async with app.run_test(size=SIZE, notifications=True) as pilot:  # notices are off in tests by default
            await until(pilot, lambda: app.main.ready)
            for number in range(MAX_NOTICES * 5):
                app.notify(f"done {number}", markup=False)
                await pilot.pause()
            await pilot.pause()
            assert not app.screen.query("Toast") and not app.screen.query("ToastHolder")
            line = app.main.notice_line
            assert line.display and f"done {MAX_NOTICES * 5 - 1}" in line.plain
            assert f"+{MAX_NOTICES - 1} more" in line.plain

    asyncio.run(main())


def test_an_action_notice_comes_after_the_frame_that_shows_its_write(world) -> None:
    """The success notice of an action is mounted only once the snapshot holding what
    the action wrote is drawn: a toast laid out first would delay that frame."""
    app = make_app(world)
    gate = "task:t1:g-w1-1"
    notices_when_drawn: list[int] = []

    async def scenario(pilot):
        show = app.main.show

        def recording_show(snapshot):
            if snapshot.decision(gate) is None:
                notices_when_drawn.append(len(app._notifications))
            show(snapshot)

        app.main.show = recording_show  # type: ignore[method-assign]
        assert app.main.query_one(DecisionList).select_key(gate)
        await pilot.press("a")
        await until(pilot, lambda: app.main.confirm_bar.asking, "the confirm bar")
        await pilot.press("enter")
        await until(pilot, lambda: any("approved" in str(n.message) for n in app._notifications), "the notice")
        assert notices_when_drawn and notices_when_drawn[0] == 0

    run(app, scenario)


def test_an_answered_confirm_bar_goes_once_the_answer_is_drawn(world) -> None:
    """After Enter the bar stops asking but stays drawn, with the focus, until the
    snapshot with the decision is drawn; then it goes and the focus is back on the
    list."""
    app = make_app(world)
    gate = "task:t1:g-w1-1"
    drawn_when_answered: list[bool] = []

    async def scenario(pilot):
        bar = app.main.confirm_bar
        hide = bar.hide_answered

        def recording_hide():
            if app._newest is not None and app._newest.decision(gate) is None:
                drawn_when_answered.append(bar.display)
            hide()

        bar.hide_answered = recording_hide  # type: ignore[method-assign]
        assert app.main.query_one(DecisionList).select_key(gate)
        await pilot.press("a")
        await until(pilot, lambda: bar.asking, "the confirm bar")
        await pilot.press("enter")
        assert not bar.asking
        await until(pilot, lambda: bool(drawn_when_answered), "the answer drawn")
        assert drawn_when_answered[0] is True
        assert not bar.display and app.focused is app.main.query_one(DecisionList)

    run(app, scenario)


def test_an_answered_confirm_bar_goes_when_nothing_is_drawn(world) -> None:
    """An answer that draws nothing (here: the gate was decided elsewhere meanwhile, so
    the action fails and writes nothing) still closes the bar, after a short wait."""
    app = make_app(world)
    gate = "task:t1:g-w1-1"

    async def scenario(pilot):
        bar = app.main.confirm_bar
        assert app.main.query_one(DecisionList).select_key(gate)
        await pilot.press("a")
        await until(pilot, lambda: bar.asking, "the confirm bar")
        decide_gate(world, "t1", "g-w1-1", "approve")
        await pilot.press("enter")
        await until(pilot, lambda: any(n.severity == "error" for n in app._notifications), "the error notice")
        await until(pilot, lambda: not bar.display, "the bar to go")

    run(app, scenario)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_a_notice_never_covers_the_detail_or_the_note_being_typed(world, size, monkeypatch) -> None:
    """Right after an approve, the next gate's questions and the reject note field stay
    uncovered while the notice is up."""
    monkeypatch.setattr(decisions_panel, "ANSWER_QUIET_S", 0.0)  # the next answer is asked at once
    app = make_app(world)

    def covering(*regions) -> list[str]:
        """The notices drawn over any of ``regions``."""
        shown = [*app.screen.query("Toast"), *app.screen.query("NoticeLine")]
        return [
            type(widget).__name__
            for widget in shown
            if widget.display and any(widget.region.overlaps(region) for region in regions)
        ]

    async def main() -> None:
        async with app.run_test(size=size, notifications=True) as pilot:
            await until(pilot, lambda: app.main.ready and app.settled)
            detail = app.main.query_one("#gate-detail")
            assert app.main.query_one(DecisionList).select_key("task:t1:g-w1-1")
            await pilot.press("a")
            await until(pilot, lambda: app.main.confirm_bar.asking, "the confirm bar")
            await pilot.press("enter")
            await until(pilot, lambda: any("approved" in str(n.message) for n in app._notifications), "the notice")
            await until(pilot, lambda: app.main.notice_line.display, "the notice line")
            await pilot.pause()  # the layout the notice line asked for
            assert covering(detail.region) == []
            assert app.main.notice_line.display and "approved" in app.main.notice_line.plain
            # The next decision's reject note, typed while the notice is still up (the
            # answered one's place selects nothing until the person moves: j).
            await pilot.press("j", "r")
            await until(pilot, lambda: app.main.confirm_bar.asking, "the confirm bar")
            note = app.main.query_one("#confirm-note")
            await until(pilot, lambda: note.region.area > 0, "the note field on screen")
            assert covering(note.region, app.main.confirm_bar.region, detail.region) == []

    asyncio.run(main())


class ExpiresWhenAskedTwice(Notification):
    """A notice that expires between two looks at it: the moment a storm of notices
    hits at random, made certain."""

    looks = 0

    @property
    def has_expired(self) -> bool:
        self.looks += 1
        return self.looks > 1


def test_f19_a_notice_expiring_while_the_notices_are_read_does_not_stop_the_app(world) -> None:
    """Textual's collection of notices drops expired ones whenever its length is asked,
    and ``list()`` asks it after taking the iterator: a notice expiring in between
    raised "dictionary changed size during iteration" and ended the app (a file
    replaced every few dozen ms for 20 s did it)."""
    app = make_app(world)

    async def scenario(pilot):
        app._notifications.add(Notification("live", timeout=60))
        app._notifications.add(ExpiresWhenAskedTwice("going"))
        with pytest.raises(RuntimeError):
            list(app._notifications)  # the trap itself
        app._notifications.add(ExpiresWhenAskedTwice("going"))
        assert [n.message for n in app.notices()] == ["live", "going"]
        app.notify("one more", markup=False)
        await until(pilot, lambda: any(n.message == "one more" for n in app.notices()))
        assert app.is_running

    run(app, scenario)


def test_ctrl_c_says_how_to_quit_as_a_plain_hint(world) -> None:
    """Ctrl+C does not quit (it copies in a text input): the notice it raises tells
    the key that quits, in plain words, as information that claims nothing was done
    (no success tick) and shows no markup."""
    app = make_app(world)

    async def main() -> None:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await until(pilot, lambda: app.main.ready)
            await pilot.press("ctrl+c")
            await until(pilot, lambda: app.main.notice_line.display, "the notice line")
            [notice] = app.notices()
            assert notice.severity == "information"
            line = app.main.notice_line.plain
            assert "[" not in line and "✓" not in line
            assert line == "press ^q to quit"
            assert app.is_running

    asyncio.run(main())


def test_n_lists_every_notice_newest_first_with_its_time_and_severity(world) -> None:
    """The notice line shows one and counts the others ("+2 more"); ``n`` lists them
    all, the ones pushed out and timed out too, newest first, sanitised."""
    app = make_app(world)

    async def main() -> None:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await until(pilot, lambda: app.main.ready and app.settled)
            app.notify("it broke\x1b[31m", title="Could not approve", severity="error", markup=False)
            for number in range(MAX_NOTICES + 2):
                app.notify(f"done {number}", markup=False)
            await until(pilot, lambda: ", n lists them)" in app.main.notice_line.plain, "the count of the others")
            assert "it broke" in app.main.notice_line.plain  # the error is the one the line shows
            await pilot.press("n")
            await until(pilot, lambda: isinstance(app.screen, NoticesScreen), "the notices")
            body = app.screen.query_one("#notices-body").render()
            assert isinstance(body, Content)
            lines = body.plain.splitlines()
            assert len(lines) == MAX_NOTICES + 3  # the information notices pushed off the line too
            assert [line.split()[1:] for line in lines[:2]] == [["info", "✓", "done", "5"], ["info", "✓", "done", "4"]]
            assert re.fullmatch(r"\d\d:\d\d:\d\d  error   ✖ Could not approve: it broke.*", lines[-1])
            assert "\x1b" not in body.plain
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is app.main, "back")

    asyncio.run(main())


def test_the_notices_are_in_the_help_and_the_palette(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        assert "notices: every notice so far" in str(app.screen.query_one(".dialog--body Static").render())
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main, "back")
        await pilot.press("ctrl+p")
        await type_text(pilot, "notices")
        await until(pilot, lambda: palette_gathered(app), "the palette's matches")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, NoticesScreen), "the notices from the palette")

    run(app, scenario)
