"""The roster and `teamdeck run` (docs/protocol.md, "Running the agents"): a member whose
run is going is marked ▶ with since when, its runs today and cost in the detail; `l`
shows its run log live, `w` asks the runner to wake it, `x` (confirmed) to stop its run."""

from __future__ import annotations

import json

from support.pilot_helpers import make_app, run, until
from support.run_records import name_in_agents, running

from teamdeck.tui.dialogs.run_log import RunLogScreen
from teamdeck.tui.panels.roster.panel import RosterPanel
from teamdeck.tui.panels.roster.roster_list import RUNNING, RosterList
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

RUN_ID = "r-01m8cg0000000000000000abcd"


def _requests(ws) -> list[dict]:
    path = ws.root / "runs" / "requests.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_running_member_is_marked_its_log_is_shown_and_it_can_be_woken_or_stopped(world) -> None:
    name_in_agents(world, "alpha/*")
    process = running(world, "alpha", "alice", RUN_ID)
    (world.run_dir("alpha", "alice", RUN_ID) / "output.log").write_text(
        '{"type": "system", "subtype": "init"}\nworking on the parser\n'
    )
    app = make_app(world)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        assert roster.select_key("alpha/alice")
        await pilot.pause()
        row = next(row for row in roster.rows if row.key == "alpha/alice")
        assert row.cells[0].text == RUNNING and row.cells[2].text.startswith("running")
        other = next(row for row in roster.rows if row.key == "alpha/bob")
        assert other.cells[0].text != RUNNING
        detail = app.main.query_one(RosterPanel).query_one("#member-detail-text").render()
        assert "▶ running" in str(detail) and "1 run today" in str(detail) and "l run log" in str(detail)

        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, RunLogScreen), "the run log")
        await until(pilot, lambda: "working on the parser" in str(app.screen.query_one("#run-log-body").render()), "it")
        with open(world.root / "runs" / "alpha" / "alice" / RUN_ID / "output.log", "a") as log:
            log.write("parser done\n")
        await until(pilot, lambda: "parser done" in str(app.screen.query_one("#run-log-body").render()), "the tail")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main, "the roster again")

        await pilot.press("w")
        await until(pilot, lambda: [r["type"] for r in _requests(world)] == ["wake"], "the wake request")
        await pilot.press("x")
        await until(pilot, lambda: app.main.confirm_bar.asking, "the confirm bar")
        assert isinstance(app.screen.query_one(ConfirmBar), ConfirmBar)
        await pilot.press("enter")
        await until(pilot, lambda: [r["type"] for r in _requests(world)] == ["wake", "stop"], "the stop request")
        assert _requests(world)[-1]["member"] == "alice" and _requests(world)[-1]["by"] == "human:tester"

    try:
        run(app, scenario)
    finally:
        process.kill()
        process.wait()


def test_stop_is_greyed_for_a_member_without_a_run(world) -> None:
    app = make_app(world)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        assert roster.select_key("alpha/bob")
        await pilot.pause()
        panel = app.main.query_one(RosterPanel)
        assert panel.check_action("stop_run", ()) is None
        assert panel.why_disabled("stop_run") == "bob has no run going (teamdeck run)"

    run(app, scenario)


def test_quitting_while_runs_go_asks_first_and_says_they_continue(world) -> None:
    """``q`` with a run of ``teamdeck run`` going asks in the confirm bar (the runner is a
    process of its own: the run outlives the TUI); esc stays, enter quits, and the run
    is still there after. With no run going, ``q`` quits at once (below)."""
    name_in_agents(world, "alpha/*")
    process = running(world, "alpha", "alice", RUN_ID)
    app = make_app(world)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        await pilot.press("q")
        await until(pilot, lambda: app.main.confirm_bar.asking, "the question")
        body = str(app.main.confirm_bar.body)
        assert "alpha/alice" in body and "continue without the TUI" in body, body
        assert app.main.confirm_bar.confirm_label == "Quit"
        request = app.main.confirm_bar.request
        assert request is not None and str(request.title) == "Quit while 1 run of teamdeck run goes on?"
        await pilot.press("escape")
        await until(pilot, lambda: not app.main.confirm_bar.asking, "the bar closed")
        assert app.is_running
        await pilot.press("q")
        await until(pilot, lambda: app.main.confirm_bar.asking, "the question again")
        await pilot.press("enter")
        await until(pilot, lambda: not app.is_running, "the app to quit")

    try:
        run(app, scenario)
        assert process.poll() is None  # quitting the TUI stopped nothing
    finally:
        process.kill()
        process.wait()


def test_quitting_with_no_run_going_does_not_ask(world) -> None:
    app = make_app(world)

    async def scenario(pilot) -> None:
        await pilot.press("q")
        await until(pilot, lambda: not app.is_running, "the app to quit")
        assert not app.main.confirm_bar.asking

    run(app, scenario)
