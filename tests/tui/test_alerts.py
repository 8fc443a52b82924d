"""Alerts when a person is needed, through the app: a decision that
arrives rings the terminal and names the agent and the reason - unless the terminal has
focus and the queue is shown; it is marked new in the queue until the person has
looked; ``notify.command`` gets one JSON object per decision, runs spaced by its
interval, and a failing command is a notice, never fatal."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest
from support import decision_world as world
from support.pilot_helpers import make_app, run, until

from teamdeck.store.workspace import Workspace
from teamdeck.tui.panels.decisions.decision_list import NEW_MARK, DecisionList


@pytest.fixture
def team_ws(tmp_path: Path) -> Workspace:
    return world.team_workspace(tmp_path / "ws")


def arrive(app, ws: Workspace, member: str, request_id: str) -> str:
    """``member`` asks for a permission; the app reads it (as its watcher would)."""
    world.ask_permission(ws, "alpha", member, request_id, description=f"Run the tests for {request_id}")
    app.paths_changed([ws.inbox("alpha", "team-lead")])
    return f"permission:alpha:{member}:{request_id}"


def in_queue(app, key: str) -> bool:
    return any(row.key == key for row in app.main.query_one(DecisionList).rows)


def marked(app, key: str) -> bool:
    row = next(row for row in app.main.query_one(DecisionList).rows if row.key == key)
    return row.cells[0].text.endswith(NEW_MARK)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_an_arrival_rings_when_unfocused_and_not_when_looking(team_ws, size) -> None:
    app = make_app(team_ws)

    async def scenario(pilot):
        assert app.app_focus and app.main.current_panel == "gates"
        key = arrive(app, team_ws, "bob", "perm-1")
        await until(pilot, lambda: in_queue(app, key), "the first request")
        assert app.alerter.sent == []  # looking at the queue: no bell
        app.app_focus = False  # as the terminal's focus-out report sets it
        key = arrive(app, team_ws, "alice", "perm-2")
        await until(pilot, lambda: in_queue(app, key), "the second request")
        assert len(app.alerter.sent) == 1
        sent = app.alerter.sent[0]
        assert sent.startswith("\x07")
        assert "\x1b]9;alice asks for permission (team alpha)" in sent
        assert "\x1b]777;notify;" in sent and "alice" in sent.split("\x1b]777;notify;")[1]
        # Focused again but on another panel: not looking at the queue, it rings.
        app.app_focus = True
        await pilot.press("2")
        key = arrive(app, team_ws, "bob", "perm-3")
        await until(pilot, lambda: len(app.alerter.sent) == 2, "the alert from the roster")
        assert "bob" in app.alerter.sent[1]

    run(app, scenario, size)


def test_a_new_decision_is_marked_until_the_person_looked(team_ws) -> None:
    app = make_app(team_ws)

    async def scenario(pilot):
        app.app_focus = False
        first = arrive(app, team_ws, "bob", "perm-1")
        await until(pilot, lambda: in_queue(app, first), "the request")
        second = arrive(app, team_ws, "alice", "perm-2")
        await until(pilot, lambda: in_queue(app, second), "the second request")
        assert marked(app, first) and marked(app, second)
        app.app_focus = True
        await pilot.press("2")  # away from the queue while it was not looked at: still new
        await pilot.press("1")
        await pilot.pause()
        assert marked(app, first) and marked(app, second)
        # Moving onto one: seen; the other stays new.
        gates = app.main.query_one(DecisionList)
        target = 1 - gates.cursor
        await pilot.press("down" if target else "up")
        chosen, other = gates.rows[target].key, gates.rows[1 - target].key
        await until(pilot, lambda: not marked(app, chosen), "the selected one unmarked")
        assert marked(app, other)
        # Leaving the queue after looking: nothing is new any more.
        await pilot.press("2")
        await pilot.press("1")
        await until(pilot, lambda: not marked(app, first), "the marks to go")

    run(app, scenario)


def _settings(ws: Workspace, command: list[str], interval: float) -> None:
    (ws.root / ".teamdeck.yaml").write_text(
        json.dumps({"notify": {"command": command, "minIntervalSeconds": interval}}), encoding="utf-8"
    )


def test_notify_command_gets_one_json_per_decision_spaced_by_its_interval(team_ws, tmp_path) -> None:
    out = tmp_path / "notified.jsonl"
    script = "import sys, json, time; d = json.load(sys.stdin); print(json.dumps([time.monotonic(), d]), flush=True)"
    _settings(team_ws, [sys.executable, "-c", f"{script}\nopen({str(out)!r}, 'a').write(json.dumps(d) + '\\n')"], 0.6)
    app = make_app(team_ws)

    async def scenario(pilot):
        keys = [arrive(app, team_ws, name, f"perm-{name}") for name in ("bob", "alice")]
        await until(pilot, lambda: all(in_queue(app, key) for key in keys), "both requests")
        started = time.monotonic()
        await until(pilot, lambda: out.exists() and len(out.read_text().splitlines()) == 2, "two runs")
        assert time.monotonic() - started >= 0.5  # the second waited for the interval
        sent = [json.loads(line) for line in out.read_text().splitlines()]
        assert sorted(item["key"] for item in sent) == sorted(keys)
        assert all(item["alert"] == "decision" and item["kind"] == "permission" for item in sent)
        assert app.alerter.command.runs == 2

    run(app, scenario)


def test_a_failing_notify_command_is_a_notice_never_fatal(team_ws) -> None:
    _settings(team_ws, [sys.executable, "-c", "import sys; sys.stderr.write('no route to ntfy\\n'); sys.exit(3)"], 0)
    app = make_app(team_ws)

    async def scenario(pilot):
        arrive(app, team_ws, "bob", "perm-1")
        await until(
            pilot, lambda: any("notify.command failed" in str(n.message) for n in app._notifications), "the notice"
        )
        notice = next(str(n.message) for n in app._notifications if "notify.command failed" in str(n.message))
        assert "exit status 3" in notice and "no route to ntfy" in notice
        key = arrive(app, team_ws, "alice", "perm-2")
        await until(pilot, lambda: in_queue(app, key), "the app going on")
        assert app.is_running

    run(app, scenario)


def test_a_notify_command_that_cannot_start_is_a_notice(team_ws, tmp_path) -> None:
    _settings(team_ws, [str(tmp_path / "no-such-notifier")], 0)
    app = make_app(team_ws)

    async def scenario(pilot):
        arrive(app, team_ws, "bob", "perm-1")
        await until(pilot, lambda: any("could not start" in str(n.message) for n in app._notifications), "the notice")
        assert app.is_running

    run(app, scenario)


def test_a_notify_command_that_fails_after_the_person_quit_goes_unsaid(team_ws, monkeypatch) -> None:
    """The command's thread outlives the app (it finishes the run in progress): its
    failure is dropped, not raised in the thread (a traceback after the TUI closed)."""
    _settings(team_ws, [sys.executable, "-c", "import sys, time; time.sleep(0.5); sys.exit(3)"], 0)
    raised: list[object] = []
    monkeypatch.setattr(threading, "excepthook", raised.append)
    app = make_app(team_ws)

    async def scenario(pilot):
        arrive(app, team_ws, "bob", "perm-1")
        await until(pilot, lambda: app.alerter.command.runs == 1, "the command running")

    run(app, scenario)
    for thread in threading.enumerate():
        if thread.name == "notify-command":
            thread.join(timeout=10)
    assert raised == []
