"""Issue 9 part B through the keys, asserting the files: a permission request allowed or
denied from the decision queue; a stuck shutdown offered once the clock has moved,
then resent and forced; idle folds expanded; at 80x24 the footer keeps q and ?."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import decision_world as world
from support.pilot_helpers import busy, make_app, palette_gathered, run, showing, type_text, until

from teamdeck.formats.claude_code.inbox import read_inbox
from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown
from teamdeck.store.workspace import Workspace
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.decisions.panel import DecisionsPanel
from teamdeck.tui.panels.inbox.inbox_list import InboxList
from teamdeck.tui.panels.inbox.panel import InboxPanel
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.widgets.confirm_bar import ConfirmBar
from teamdeck.tui.widgets.deck_footer import DeckFooter


@pytest.fixture
def team_ws(tmp_path: Path) -> Workspace:
    return world.team_workspace(tmp_path / "ws")


def inbox(ws: Workspace, member: str) -> list[dict]:
    return [entry.raw for entry in read_inbox(ws.inbox("alpha", member)).entries]


def log(ws: Workspace) -> list[dict]:
    return [json.loads(line) for line in ws.messages_log("alpha").read_text().splitlines()]


def gate_keys(app) -> list[str]:
    return [row.key for row in app.main.query_one(DecisionList).rows]


async def answer(pilot, app, gate_key: str, key: str, note: str = "") -> None:
    """Select ``gate_key`` in the queue, press ``key``, type ``note``, confirm, and wait
    until the action is done and read back."""
    await pilot.press("1")
    assert app.main.query_one(DecisionList).select_key(gate_key), gate_key
    gates = app.main.query_one(DecisionsPanel)
    await until(pilot, lambda: not gates.answers_quiet, "the moment after the last answer")  # its keys are ignored
    await pilot.press(key)
    await until(pilot, lambda: showing(app, ConfirmBar), "the confirm dialog")
    if note:
        await type_text(pilot, note)
    await pilot.press("enter")
    await until(pilot, lambda: not showing(app, ConfirmBar) and not busy(app), "the action")


def test_allow_and_deny_permission_requests_from_the_queue(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1", tool_input={"command": "npm test"})
    team_ws.clock.advance(10)
    world.ask_permission(team_ws, "alpha", "alice", "perm-2", tool="WebFetch", tool_input={"url": "https://x"})
    app = make_app(team_ws)

    async def scenario(pilot):
        assert gate_keys(app) == ["permission:alpha:bob:perm-1", "permission:alpha:alice:perm-2"]
        await answer(pilot, app, "permission:alpha:bob:perm-1", "a")
        await until(pilot, lambda: gate_keys(app) == ["permission:alpha:alice:perm-2"], "perm-1 to leave")
        assert json.loads(inbox(team_ws, "bob")[-1]["text"]) == {
            "type": "permission_response",
            "request_id": "perm-1",
            "subtype": "success",
            "response": {"updated_input": {"command": "npm test"}, "permission_updates": []},
        }
        await answer(pilot, app, "permission:alpha:alice:perm-2", "r", "no network")
        await until(pilot, lambda: gate_keys(app) == [], "perm-2 to leave")
        assert json.loads(inbox(team_ws, "alice")[-1]["text"]) == {
            "type": "permission_response",
            "request_id": "perm-2",
            "subtype": "error",
            "error": "no network",
        }
        assert [(r["type"], r.get("reason")) for r in log(team_ws)[-2:]] == [
            ("permission_response", None),
            ("permission_response", "no network"),
        ]

    run(app, scenario)


def test_the_palette_names_each_answer(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    app = make_app(team_ws)

    async def scenario(pilot):
        await pilot.press("ctrl+p")
        await type_text(pilot, "deny perm-1")
        await until(pilot, lambda: palette_gathered(app), "the palette's matches")
        await pilot.press("enter")
        await until(pilot, lambda: showing(app, ConfirmBar), "the deny dialog from the palette")
        assert app.main.confirm_bar.confirm_label == "Deny"

    run(app, scenario)


def test_cancel_writes_no_permission_response(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    app = make_app(team_ws)

    async def scenario(pilot):
        before = sorted(path.name for path in team_ws.inboxes_dir("alpha").iterdir())
        assert app.main.query_one(DecisionList).select_key("permission:alpha:bob:perm-1")
        await pilot.press("r")
        await until(pilot, lambda: showing(app, ConfirmBar))
        await pilot.press("escape")
        await until(pilot, lambda: not showing(app, ConfirmBar))
        assert not team_ws.inbox("alpha", "bob").exists()  # nothing was sent to bob
        assert sorted(path.name for path in team_ws.inboxes_dir("alpha").iterdir()) == before
        assert gate_keys(app) == ["permission:alpha:bob:perm-1"]

    run(app, scenario)


def test_a_stuck_shutdown_appears_when_time_passes_then_resend_and_force(team_ws: Workspace) -> None:
    first = request_shutdown(team_ws, "alpha", "alice", reason="done")
    app = make_app(team_ws)

    async def scenario(pilot):
        assert gate_keys(app) == [] and app.snapshot.member("alpha/alice").status == "shutdown-requested"
        team_ws.clock.advance(121)
        app.recheck_clock()
        stuck = f"shutdown:alpha:alice:{first.request_id}"
        await until(pilot, lambda: gate_keys(app) == [stuck], "the stuck shutdown in the queue")
        await pilot.press("2")
        row = next(row for row in app.main.query_one(RosterList).rows if row.key == "alpha/alice")
        assert any(cell.text.startswith("awaiting shutdown_response 2m") for cell in row.cells)

        await answer(pilot, app, stuck, "a")  # resend
        await until(pilot, lambda: gate_keys(app) == [], "the old request to leave")
        requests = [json.loads(raw["text"]) for raw in inbox(team_ws, "alice") if "shutdown_request" in raw["text"]]
        assert len(requests) == 2 and requests[-1]["reason"] == "done"
        second = requests[-1]["requestId"]
        assert second != first.request_id
        note = log(team_ws)[-1]
        assert (note["type"], note["requestId"], note["member"]) == ("shutdown_superseded", first.request_id, "alice")

        team_ws.clock.advance(121)
        app.recheck_clock()
        again = f"shutdown:alpha:alice:{second}"
        await until(pilot, lambda: gate_keys(app) == [again], "the resent request to be stuck too")
        await answer(pilot, app, again, "r", "no pane left")  # force offline
        await until(pilot, lambda: app.snapshot.member("alpha/alice").status == "offline", "alice offline")
        config = json.loads(team_ws.team_config("alpha").read_text())
        assert next(m for m in config["members"] if m["name"] == "alice")["isActive"] is False
        record = log(team_ws)[-1]
        assert (record["type"], record["member"], record["reason"]) == ("member_deactivated", "alice", "no pane left")
        assert gate_keys(app) == []

    run(app, scenario)


def test_idle_folds_expand_and_fold_again(team_ws: Workspace) -> None:
    for _ in range(7):
        world.idle(team_ws, "alpha", "bob")
        team_ws.clock.advance(30)
    app = make_app(team_ws)

    async def scenario(pilot):
        await app.main.open_inbox("alpha/team-lead")
        panel, inbox = app.main.query_one(InboxPanel), app.main.query_one(InboxList)
        await until(pilot, lambda: panel.member_key == "alpha/team-lead" and inbox.rows, "the inbox drawn")
        assert [row.key for row in inbox.rows] == ["0"]
        assert inbox.rows[0].cells[3].text == "idle ×7" and "last 30s ago" in inbox.rows[0].cells[4].text
        # The panel's own actions (the keys are the registry's, tested there): under load
        # a key can reach another widget while the first tab is still being activated.
        panel.action_read()  # enter on a fold shows it
        await until(pilot, lambda: len(inbox.rows) == 8, "the fold expanded")
        assert [row.key for row in inbox.rows] == ["0", *(f"idle-{index}" for index in range(7))]
        assert inbox.select_key("idle-1")
        panel.action_toggle_fold()  # e on a notification inside the fold folds it
        await until(pilot, lambda: len(inbox.rows) == 1, "the fold folded")

    run(app, scenario)


@pytest.mark.parametrize("panel", ["1", "2", "3", "4", "5", "6", "7"])
def test_the_footer_keeps_q_and_help_at_80x24(team_ws: Workspace, panel: str) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    app = make_app(team_ws)

    async def scenario(pilot):
        await pilot.press(panel)
        footer = app.screen.query_one(DeckFooter)
        tabs = app.main.query_one("TabbedContent")
        await until(pilot, lambda: tabs.get_tab(app.main.current_panel).label_text.startswith(panel), "the panel")
        await pilot.pause()  # the footer follows the focus the panel moved
        for action in ("quit", "help"):
            region = footer.region_of(action)
            assert region is not None and region.width > 0 and region.right <= 80, (action, region)

    run(app, scenario, size=(80, 24))
