"""``teamdeck demo`` with its TUI: the runner runs behind the app and stops with it.

The app is replaced by a stand-in (no Textual here) that records how it was built and
"quits" once the runner has a run going; after that, no run may still be live and no
agent process may be left.
"""

from __future__ import annotations

import sys
import time
import types
from datetime import timedelta
from pathlib import Path

from teamdeck.cli.main import main
from teamdeck.clock import parse_iso, utc_now
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.runs import all_runs


class StandInApp:
    def __init__(self, root: Path, **options: object) -> None:
        self.root, self.options = root, options
        self.seen_live: list[str] = []

    def run(self) -> None:
        deadline = time.monotonic() + 30
        while not self.seen_live:  # the person watches until a run is going (▶), then quits
            assert time.monotonic() < deadline, "the runner started no run while the app ran"
            ws = Workspace.at(self.root)
            self.seen_live = [run.id for member in all_runs(ws) for run in member.runs if run.live]
            time.sleep(0.02)


def test_quitting_the_tui_stops_the_runner_and_its_runs(tmp_path: Path, monkeypatch, capsys):
    built: list[StandInApp] = []

    def create_app(ws: Workspace, **options: object) -> StandInApp:
        built.append(StandInApp(ws.root, clock=ws.clock, read_only=ws.read_only, **options))
        return built[-1]

    monkeypatch.setitem(sys.modules, "teamdeck.tui.app", types.SimpleNamespace(create_app=create_app))
    root = tmp_path / "demo"
    started = utc_now() - timedelta(seconds=1)
    assert main(["--workspace", str(root), "demo", "--speed", "50"]) == 0
    app = built[0]
    assert app.root == root.resolve() and app.options["read_only"] is False
    now = app.options["clock"]()
    assert started <= now < started + timedelta(minutes=1)  # the real clock: the copy was rebased to now
    out = capsys.readouterr().out
    assert out.startswith("demo ran ") and "started by the runner" in out
    runs = [run for member in all_runs(Workspace.at(root)) for run in member.runs]
    assert app.seen_live and {run.id for run in runs} >= set(app.seen_live)
    assert not [run for run in runs if run.live]  # every run ended with the demo
    for run in runs:  # on the clock the TUI is on
        assert started <= parse_iso(run.createdAt) <= utc_now()
    for pid in (run.pid for run in runs if run.pid):
        assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[-1][:3]
    sizes = {path: path.stat().st_size for path in root.rglob("*.json")}
    time.sleep(0.5)  # at speed 50 that is 25 scenario seconds: nothing may move any more
    assert {path: path.stat().st_size for path in root.rglob("*.json")} == sizes
