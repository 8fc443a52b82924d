"""Keys typed ahead: a person typing fast, or a terminal over SSH that delivers several
keys in one read, sends the next key before the app has handled the one before; each
must go where it would have gone typed slowly. Pilot's ``press`` waits for the app to
be idle after every key, so these tests queue the keys at once, as a terminal read does."""

from __future__ import annotations

from support.pilot_helpers import busy, make_app, run, showing, until
from textual import events
from textual.widgets import Input

from teamdeck.protocol.task.taskfile import load_task
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

TASK_GATE = "task:t1:g-w1-1"


def _type_ahead(app, *keys: str) -> None:
    """Queue ``keys`` as one read of the terminal does: all before the app handles the first."""
    for key in keys:
        app._driver.send_message(events.Key(key, key if len(key) == 1 else None))


async def _on_the_gate(pilot, app) -> None:
    gates = app.main.query_one(DecisionList)
    assert gates.select_key(TASK_GATE)
    gates.focus()
    await pilot.pause()


def test_enter_typed_right_after_a_confirms_the_approval(world) -> None:
    """``a`` then ``enter`` at once: the confirm bar confirms; the enter used to reach the
    list, still focused, and open the gate's read view instead."""
    app = make_app(world)

    async def scenario(pilot):
        await _on_the_gate(pilot, app)
        _type_ahead(app, "a", "enter")
        await until(
            pilot,
            lambda: load_task(world, "t1").gates[0].state == "approved" or app.screen is not app.main,
            "the answer",
        )
        assert app.screen is app.main, f"the enter went to {app.screen!r}"
        await until(pilot, lambda: not busy(app), "the action")
        assert not showing(app, ConfirmBar)

    run(app, scenario)


def test_a_note_typed_right_after_a_goes_into_the_note(world) -> None:
    """Its letters are the note's, not keys: ``q`` is the quit key."""
    app = make_app(world)

    async def scenario(pilot):
        await _on_the_gate(pilot, app)
        _type_ahead(app, "a", "q", "u", "i", "c", "k", "enter")
        await until(pilot, lambda: load_task(world, "t1").gates[0].state == "approved", "the approval")
        assert load_task(world, "t1").gates[0].note == "quick"
        assert app.is_running
        await until(pilot, lambda: not busy(app), "the action")

    run(app, scenario)


def test_a_filter_typed_right_after_slash_filters_and_answers_nothing(world) -> None:
    """``/`` then ``par`` in one read: the letters are the filter's. The filter line is
    mounted and focused after them; they used to reach the list, where ``a`` opened
    Approve on the selected gate and ``r`` went into its note."""
    app = make_app(world)

    async def scenario(pilot):
        await _on_the_gate(pilot, app)
        _type_ahead(app, "slash", "p", "a", "r")
        await until(pilot, lambda: isinstance(app.focused, Input) and app.focused.value == "par", "the filter")
        await pilot.pause(0.2)
        assert not showing(app, ConfirmBar)
        assert load_task(world, "t1").gates[0].state == "blocked"

    run(app, scenario)
