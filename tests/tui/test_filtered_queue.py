"""Panel 1 under a filter (``/``): once the only decision that matched is answered, the
list says that none matches the filter and how many wait in all (it read "reading…",
as if nothing had been read yet), the answer keys are greyed, and ``a`` pressed anyway
names the answer the footer shows and why nothing is selected."""

from __future__ import annotations

from support.pilot_helpers import busy, lines_of, make_app, run, showing, type_text, until

from teamdeck.protocol.task.taskfile import load_task
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

GATE = "task:t1:g-w1-1"


def _notices(app) -> list[str]:
    return [str(notice.message) for notice in app.notices()]


def test_answering_the_only_match_of_a_filter_says_none_matches(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        gates = app.main.query_one(DecisionList)
        assert len(gates.rows) == 2  # the gate and bob's plan
        await pilot.press("slash", *"w1", "enter")
        await until(pilot, lambda: [row.key for row in gates.rows] == [GATE], "only the gate")
        await pilot.press("r")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm bar")
        await type_text(pilot, "not now\n")
        await until(pilot, lambda: load_task(world, "t1").gates[0].state == "rejected", "the rejection")
        await until(pilot, lambda: not busy(app) and not gates.rows, "the gate gone from the list")
        await pilot.pause()
        assert lines_of(gates)[0].strip() == "no decision matches “w1” — 1 waiting in all (esc clears the filter)"

        enabled = {active.binding.action: active.enabled for active in app.screen.active_bindings.values()}
        assert enabled["answer('approve')"] is False and enabled["answer('reject')"] is False

        await pilot.press("a")
        why = "Approve: nothing is selected: the filter “w1” hides every row"
        await until(pilot, lambda: why in _notices(app), "the refusal")
        assert not any(notice.startswith("Retry") for notice in _notices(app))
        assert not showing(app, ConfirmBar)

        await pilot.press("escape")  # the filter cleared: the plan is there
        await until(pilot, lambda: [row.key for row in gates.rows] == ["plan:alpha:bob:plan-1"], "the plan")

    run(app, scenario)


def test_a_filter_that_hides_every_row_says_so_in_any_panel(world) -> None:
    """The base list's words, for a panel that does not name its rows (the roster)."""
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2", "slash", *"zzz")
        roster = app.main.panel("roster").list
        await until(pilot, lambda: not roster.rows, "no member left")
        await pilot.pause()
        assert lines_of(roster)[0].strip().startswith("nothing matches “zzz” — ")
        assert lines_of(roster)[0].strip().endswith(" in all (esc clears the filter)")

    run(app, scenario)
