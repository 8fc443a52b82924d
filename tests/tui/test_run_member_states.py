"""The roster and members `teamdeck run` runs: each shows the state its runs give (never
run, failed ×N marked `!`); the run keys `l`, `w`, `x` are in the footer at 120 columns,
greyed where they do not apply, and `w` on a member no `agents:` entry names says why
instead of asking the runner for a wake it would never act on."""

from __future__ import annotations

import yaml
from support.pilot_helpers import make_app, run, until
from support.run_records import ended, name_in_agents

from teamdeck.protocol.team.teams import add_member
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.widgets.deck_footer import DeckFooter

RUN_KEYS = ("run_log", "wake", "stop_run")


def _enabled(app) -> dict[str, bool]:
    """The run keys of the screen's active bindings: whether each applies now."""
    found = {binding.action: enabled for _n, binding, enabled, _t in app.screen.active_bindings.values()}
    return {action: found[action] for action in RUN_KEYS}


def _notices(app) -> list[str]:
    return [str(notice.message) for notice in app._notifications]


def test_run_members_show_their_runs_state_and_the_run_keys_say_when_they_apply(world) -> None:
    add_member(world, "alpha", "carol")
    name_in_agents(world, "alpha/*")
    for minutes in (30, 20, 10):
        ended(world, "alpha", "carol", "failed", minutes_ago=minutes, error="exit 1")
    app = make_app(world)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        footer = app.main.query_one(DeckFooter)
        await until(pilot, lambda: roster.select_key("alpha/alice"), "alice")
        rows = {row.key: row for row in roster.rows}
        assert rows["alpha/alice"].cells[2].text == "never run"
        assert rows["alpha/carol"].cells[2].text.startswith("failed ×3")
        assert rows["alpha/carol"].cells[0].text == "!"
        assert rows["alpha/team-lead"].cells[2].text == "working"  # no entry names the lead

        await until(pilot, lambda: all(action in footer.actions for action in RUN_KEYS), "the run keys")
        assert all(footer.region_of(action) is not None for action in RUN_KEYS), footer.actions
        assert _enabled(app) == {"run_log": True, "wake": True, "stop_run": False}

        roster.select_key("alpha/team-lead")
        await until(pilot, lambda: not _enabled(app)["wake"], "wake greyed on the lead")
        assert _enabled(app) == {"run_log": False, "wake": False, "stop_run": False}
        await pilot.press("w")
        await until(
            pilot,
            lambda: "Wake: no agents: entry in .teamdeck.yaml names alpha/team-lead" in _notices(app),
            "the reason",
        )
        assert not (world.root / "runs" / "requests.jsonl").exists()

    run(app, scenario)


def test_the_model_an_agents_entry_configures_shows_when_the_team_config_names_none(world) -> None:
    """bob's team config names no model: the roster shows the one his ``agents:`` entry
    sets (the exact entry over the wildcard); alice keeps her team config's; the lead,
    whom a wildcard never names, shows none."""
    settings = {"alpha/*": {"model": "haiku"}, "alpha/bob": {"model": "opus"}}
    (world.root / ".teamdeck.yaml").write_text(yaml.safe_dump({"agents": settings}))
    app = make_app(world)

    async def scenario(pilot) -> None:
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: roster.select_key("alpha/bob"), "bob")
        models = {row.key: row.cells[-1].text for row in roster.rows}
        assert models == {"alpha/team-lead": "", "alpha/alice": "sonnet", "alpha/bob": "opus"}, models
        assert app.snapshot.member("alpha/bob").model == "opus"

    run(app, scenario)
