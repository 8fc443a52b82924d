"""``teamdeck demo`` with its TUI: the simulation runs behind the app and stops with it.

The app is replaced by a stand-in (no Textual here) that records how it was built and
"quits" once the simulated agents have written something.
"""

from __future__ import annotations

import sys
import time
import types
from datetime import timedelta
from pathlib import Path

from teamdeck.cli.main import main
from teamdeck.sim.clock import DEMO_NOW
from teamdeck.store.workspace import Workspace


class StandInApp:
    def __init__(self, root: Path, **options: object) -> None:
        self.root, self.options = root, options

    def run(self) -> None:
        indexer = self.root / "tasks" / "search-index" / "agents" / "indexer" / "artifacts" / "final.json"
        deadline = time.monotonic() + 10
        while not indexer.exists():  # the person watches until a worker blocks, then quits
            assert time.monotonic() < deadline, "the simulation wrote nothing while the app ran"
            time.sleep(0.01)


def test_quitting_the_tui_stops_the_simulation(tmp_path: Path, monkeypatch, capsys):
    built: list[StandInApp] = []

    def create_app(ws: Workspace, **options: object) -> StandInApp:
        built.append(StandInApp(ws.root, clock=ws.clock, read_only=ws.read_only, **options))
        return built[-1]

    monkeypatch.setitem(sys.modules, "teamdeck.tui.app", types.SimpleNamespace(create_app=create_app))
    root = tmp_path / "demo"
    assert main(["--workspace", str(root), "demo", "--speed", "50"]) == 0
    app = built[0]
    assert app.root == root.resolve() and app.options["read_only"] is False
    assert app.options["first_read"] is None  # the simulation runs on a thread: no fork
    now = app.options["clock"]()
    assert DEMO_NOW <= now < DEMO_NOW + timedelta(minutes=1)  # the TUI shares the demo clock
    out = capsys.readouterr().out
    assert out.startswith("simulated ") and "output" in out
    sizes = {path: path.stat().st_size for path in root.rglob("*.json")}
    time.sleep(0.3)  # at speed 50 that is 15 simulated seconds: nothing may move any more
    assert {path: path.stat().st_size for path in root.rglob("*.json")} == sizes
