"""A runtime from outside teamdeck (docs/protocol.md, "Adding a runtime"): one module
(tests/runner/notes_runtime.py) and its entry point, nothing else. Its options are
checked in teamdeck's words, the real runner starts it on a message, and its own log
format reads in `runs show` and in the TUI's run log (`l` in the roster)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from support.pilot_helpers import until
from support.runner_world import wait_for

from teamdeck.runtime.config import AgentsConfigError, check_agents
from teamdeck.tui.app import create_app
from teamdeck.tui.dialogs.run_log import RunLogScreen
from teamdeck.tui.panels.roster.roster_list import RosterList

HERE = Path(__file__).resolve().parent


@pytest.fixture
def notes_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``runtime: notes`` registered as an installed package registers a runtime: its
    distribution's entry point, for this process and the runner's."""
    site = tmp_path / "site"
    dist = site / "teamdeck_notes-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: teamdeck-notes\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[teamdeck.runtimes]\nnotes = notes_runtime:NOTES\n")
    monkeypatch.syspath_prepend(str(site))
    paths = [os.environ.get("PYTHONPATH", ""), str(site), str(HERE)]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path for path in paths if path))


def test_its_options_are_checked_like_a_built_in_runtimes(notes_installed: None) -> None:
    with pytest.raises(AgentsConfigError) as raised:
        check_agents(
            {
                "crew/a": {"runtime": "notes", "notes": "one"},
                "crew/b": {"runtime": "notes", "notes": ["hi"], "tone": "x"},
                "crew/c": {"runtime": "notes"},
            }
        )
    lines = str(raised.value).splitlines()
    assert lines[0] == '.teamdeck.yaml agents."crew/a".notes: must be a list'
    assert lines[1].startswith('.teamdeck.yaml agents."crew/b".tone: unknown setting (known: runtime, command, ')
    assert "notes, spend_usd" in lines[1]
    assert lines[2] == '.teamdeck.yaml agents."crew/c".notes: say at least one note'  # its own check
    assert len(lines) == 3


def test_the_runner_runs_it_and_its_log_reads_in_runs_show_and_the_tui(world, notes_installed: None) -> None:
    w = world(["dev"], {"crew/dev": {"runtime": "notes", "notes": ["parsing the ledger"], "spend_usd": 0.25}})
    w.start()
    w.send("dev", "look at <b>[bold]this[/]</b>")
    run = wait_for(lambda: [r for r in w.runs("dev") if not r.live], 20)[0]
    assert (run.runtime, run.outcome, run.costUsd) == ("notes", "succeeded", 0.25)

    shown = w.cli("runs", "show", run.id)
    assert shown.returncode == 0, shown.stderr
    assert "heard: look at <b>[bold]this[/]</b>\n✎ parsing the ledger\nspent $0.25" in shown.stdout

    app = create_app(w.ws, watch=False)

    async def scenario() -> None:
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.main.ready and app.settled, "the first screen")
            await pilot.press("2")
            roster = app.main.query_one(RosterList)
            await until(pilot, lambda: roster.select_key("crew/dev"), "crew/dev on the roster")
            await pilot.press("l")
            await until(pilot, lambda: isinstance(app.screen, RunLogScreen), "the run log")
            body = lambda: str(app.screen.query_one("#run-log-body").render())  # noqa: E731
            await until(pilot, lambda: "✎ parsing the ledger" in body(), "the log's lines")
            assert "heard: look at <b>[bold]this[/]</b>" in body()  # agent text shown as written, never markup

    asyncio.run(scenario())
