"""After an answer, the next keys typed must not answer another decision: the cursor
keeps its place and selects nothing until the person moves (it used to land on the
decision that took the answered one's place, so the ``a`` of a sentence meant for a
note opened Approve on it and Enter approved it); answer keys typed in the moment
after an answer lands are ignored; and the confirm bar names the decision it answers."""

from __future__ import annotations

from time import monotonic

import pytest
from support.pilot_helpers import busy, make_app, run, showing, until
from textual.content import Content

from teamdeck.protocol.task.taskfile import load_task
from teamdeck.tui.panels.decisions import panel as decisions_panel
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

GATE = "task:t1:g-w1-1"
PLAN = "plan:alpha:bob:plan-1"


def _notices(app) -> list[str]:
    return [str(notice.message) for notice in app.notices()]


async def _approve_the_gate(pilot, app, world) -> DecisionList:
    """Approve the task gate (the plan is left waiting) and wait until it is drawn gone."""
    gates = app.main.query_one(DecisionList)
    assert gates.select_key(GATE) and {row.key for row in gates.rows} == {GATE, PLAN}
    await pilot.press("a")
    await until(pilot, lambda: showing(app, ConfirmBar), "the confirm bar")
    await pilot.press("enter")
    await until(pilot, lambda: load_task(world, "t1").gates[0].state == "approved", "the approval")
    await until(pilot, lambda: not busy(app) and [row.key for row in gates.rows] == [PLAN], "the gate gone")
    await until(pilot, lambda: not app.main.confirm_bar.display, "the bar to go")
    return gates


def test_after_an_answer_nothing_is_selected_until_the_person_moves(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        gates = await _approve_the_gate(pilot, app, world)
        assert gates.current_key is None and gates.vacant
        detail = str(app.main.query_one("#gate-detail-text").render())
        assert detail.startswith("Nothing selected: the decision you had selected is no longer waiting.")
        await pilot.press("a")  # the a of a sentence meant for somewhere else
        await until(pilot, lambda: any(n.startswith("Approve: nothing is selected") for n in _notices(app)))
        assert not showing(app, ConfirmBar)
        await pilot.press("enter")
        assert app.screen is app.main  # nothing opened
        await pilot.press("j")  # onto the one in its place (here the last: the gate was)
        await until(pilot, lambda: gates.current_key == PLAN, "the plan selected")
        assert not gates.vacant

    run(app, scenario)


def test_answer_keys_typed_just_after_an_answer_lands_are_ignored(world, monkeypatch) -> None:
    """``j`` then ``a`` at once after the answer landed: the ``a`` is ignored, and said
    so; pressed again after the moment, it asks."""
    monkeypatch.setattr(decisions_panel, "ANSWER_QUIET_S", 3.0, raising=False)  # a slow machine is well inside it
    app = make_app(world)

    async def scenario(pilot):
        gates = await _approve_the_gate(pilot, app, world)
        landed = monotonic()  # (it landed a little before)
        await pilot.press("j", "a")
        assert gates.current_key == PLAN
        assert not showing(app, ConfirmBar)
        assert any(n.startswith("Approve ignored: typed just after an answer landed") for n in _notices(app))
        await pilot.pause(max(0.0, 3.1 - (monotonic() - landed)))
        await pilot.press("a")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm bar")

    run(app, scenario)


@pytest.mark.parametrize(("key", "verb"), [("a", "approve"), ("r", "reject")])
def test_the_confirm_bar_names_the_decision_it_answers(world, key, verb) -> None:
    app = make_app(world)

    async def scenario(pilot):
        assert app.main.query_one(DecisionList).select_key(GATE)
        await pilot.press(key)
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm bar")
        bar = app.main.confirm_bar
        title = bar.query_one("#confirm-title").render()
        hint = bar.query_one("#confirm-hint").render()
        assert isinstance(title, Content) and isinstance(hint, Content)
        assert title.plain.startswith("gate g-w1-1 of task t1  ")
        assert "blocked" in title.plain  # and what it asks
        assert hint.plain == f"enter {verb} gate g-w1-1 of task t1 · esc cancel"

    run(app, scenario)
