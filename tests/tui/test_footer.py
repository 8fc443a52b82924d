"""The footer (tui/widgets/deck_footer.py): one line drawn from the screen's active
bindings that behaves like Textual's footer: its keys follow the focus, a click presses
a key, and the wheel brings keys cut at a narrow edge into
view while quit and help stay at the right."""

from __future__ import annotations

import pytest
from support.pilot_helpers import make_app, run, showing, until
from support.run_records import name_in_agents
from textual import events

from teamdeck.store.workspace import Workspace
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.screens.help import HelpScreen
from teamdeck.tui.widgets.confirm_bar import ConfirmBar
from teamdeck.tui.widgets.deck_footer import ESSENTIAL, DeckFooter


def footer_of(app) -> DeckFooter:
    return app.main.query_one(DeckFooter)


async def click_key(pilot, footer: DeckFooter, action: str) -> None:
    region = footer.region_of(action)
    assert region is not None, f"{action} is not in the footer: {footer.actions}"
    await pilot.click(DeckFooter, offset=(region.x - footer.region.x, 0))


def test_the_keys_follow_the_focus(world: Workspace) -> None:
    app = make_app(world)

    async def scenario(pilot):
        footer = footer_of(app)
        await until(pilot, lambda: "answer('approve')" in footer.actions, "the gate keys")
        await pilot.press("a")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm bar")
        await until(
            pilot, lambda: "cancel" in footer.actions and "answer('approve')" not in footer.actions, "the bar's keys"
        )
        await pilot.press("escape")
        await until(pilot, lambda: "answer('approve')" in footer.actions, "the gate keys again")

    run(app, scenario)


def test_a_click_presses_the_key(world: Workspace) -> None:
    app = make_app(world)

    async def scenario(pilot):
        footer = footer_of(app)
        await until(pilot, lambda: "answer('approve')" in footer.actions, "the gate keys")
        await click_key(pilot, footer, "answer('approve')")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm bar")
        await pilot.press("escape")
        await until(pilot, lambda: "help" in footer.actions, "the keys again")
        await click_key(pilot, footer, "help")
        await until(pilot, lambda: showing(app, HelpScreen), "the help screen")

    run(app, scenario)


def test_the_wheel_brings_cut_keys_into_view_on_a_very_narrow_terminal(world: Workspace) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        footer = footer_of(app)
        await until(pilot, lambda: "message" in footer.actions, "the roster's keys")
        quit_before = footer.region_of("quit")
        last = [action for action in footer.actions if action not in ("quit", "help", "command_palette")][-1]
        assert footer.region_of(last) is None, "the roster's last key is cut at 16 columns"
        for _ in range(20):  # the wheel over the footer (Pilot has no wheel)
            footer.post_message(events.MouseScrollDown(footer, 0, 0, 0, 1, 0, False, False, False))
        await pilot.pause()
        region = footer.region_of(last)
        assert region is not None and region.right <= quit_before.x
        assert footer.region_of("quit") == quit_before

    run(app, scenario, size=(16, 24))


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_every_key_is_shown_with_whole_words(world: Workspace, size) -> None:
    """At 80 columns the roster showed ``p App q Quit`` (P and d gone, "Approve" cut):
    labels shorten to whole words, then to the key alone, before a key is dropped."""
    app = make_app(world)

    async def scenario(pilot):
        footer = footer_of(app)
        for panel in ("1", "2", "4"):
            await pilot.press(panel)
            await until(pilot, lambda: len(footer.actions) > 3, "the panel's keys")
            text = "".join(segment.text for segment in footer.render_line(0))
            for action in footer.actions:
                assert footer.region_of(action) is not None, f"{action} is not shown: {text!r}"
            described = {binding.description for _n, binding, _e, _t in app.screen.active_bindings.values()}
            words = {word for description in described for word in description.split()}
            shown = [word for word in text.replace("▏", " ").split() if len(word) > 2 and word.isalpha()]
            assert all(word in words for word in shown), (text, shown)
            if size[0] >= 120 and panel == "1":
                assert "Approve" in text and "Reject" in text

    run(app, scenario, size=size)


def test_at_80_columns_every_key_that_applies_keeps_its_label(world: Workspace) -> None:
    """The roster has more keys than 80 columns hold with labels: drawn compact, with the
    greyed keys (none applies to alice now) losing their labels first, each key that
    applies, Wake last in the line included, still says what it does."""
    name_in_agents(world, "alpha/*")  # teamdeck run runs alice: her Wake applies
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        footer = footer_of(app)
        await until(pilot, lambda: roster.select_key("alpha/alice") and "wake" in footer.actions, "alice's keys")
        await pilot.pause()
        text = "".join(segment.text for segment in footer.render_line(0))
        applying = [
            binding
            for _n, binding, enabled, _t in app.screen.active_bindings.values()
            if enabled and binding.show and binding.action in footer.actions and binding.action not in ESSENTIAL
        ]
        assert "wake" in [binding.action for binding in applying], applying
        for binding in applying:
            label = f"{app.get_key_display(binding)} {binding.description.split()[0]}"
            assert label in text, (label, text)

    run(app, scenario, size=(80, 24))
