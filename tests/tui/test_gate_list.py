"""The gate list works the ages of its gates out at most once a second: a change of the
workspace elsewhere (an inbox, 20 a second under load) hands it the same gates again,
and those are not aged, rowed and compared again until the clock moves on."""

from __future__ import annotations

from support.decision_world import MovableClock
from support.pilot_helpers import make_app, run

import teamdeck.tui.panels.decisions.decision_list as decision_list_module
from teamdeck.tui.panels.decisions.decision_list import DecisionList


def test_the_same_gates_in_the_same_second_are_not_aged_again(world, monkeypatch) -> None:
    clock = MovableClock(world.clock())
    world = world._replace(clock=clock)
    app = make_app(world)
    aged: list[str] = []
    age_until = decision_list_module.age_until

    def counting_age_until(now):
        age_of = age_until(now)

        def counted(since):
            aged.append(since)
            return age_of(since)

        return counted

    monkeypatch.setattr(decision_list_module, "age_until", counting_age_until)

    async def scenario(pilot):
        gates = app.main.query_one(DecisionList)
        shown = app.snapshot.decisions
        assert shown, "the world has open gates"
        aged.clear()  # the first snapshot's
        # A new snapshot of the same gates (a new tuple of the very same objects).
        assert gates.show(tuple(shown), world.clock()) is False
        assert aged == []
        # One decided in the same second: the list changes, the kept rows are not aged.
        assert gates.show(tuple(shown[1:]), world.clock()) is True
        assert aged == [] and [row.key for row in gates.rows] == [gate.key for gate in shown[1:]]
        clock.advance(60)
        ages_before = [row.cells[0].text for row in gates.rows]
        assert gates.show(tuple(shown), world.clock()) is True
        assert len(aged) >= len(shown)  # each gate aged (its row made again)
        assert [row.cells[0].text for row in gates.rows] != ages_before  # a minute older

    run(app, scenario)
