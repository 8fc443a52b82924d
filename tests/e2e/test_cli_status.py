"""``teamdeck status``: text for people, --json for programs, from one read model."""

from __future__ import annotations

from support import small_worlds as worlds

from teamdeck.cli.status import render_status
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.view.refresh.build import build_snapshot


def test_status_text_and_json(ws, run_cli) -> None:
    worlds.world(ws)
    worlds.plan_request(ws, "alpha", "bob")
    result = run_cli(ws.root, "status")
    assert result.code == 0, result.err
    assert "DECISIONS WAITING (2" in result.out
    assert "task t1  gate g-w1-1" in result.out and "plan plan-1" in result.out
    assert "t1  input-required  Build the parser  [1 blocked, 1 completed, 1 invalid; 1 gate(s) waiting]" in result.out
    assert "alice" in result.out and "1 unread" in result.out
    assert "PROBLEMS (1)" in result.out and "agents/w3/artifacts/final.json" in result.out
    data = run_cli(ws.root, "status", "--json").json
    assert data["overview"]["gatesWaiting"] == 2 and data["overview"]["unread"] == 2
    assert data["tasks"][0]["workersByStatus"] == {"blocked": 1, "completed": 1, "invalid": 1}
    assert sorted(gate["kind"] for gate in data["gates"]) == ["plan-approval", "task-gate"]
    alice = next(member for member in data["teams"][0]["members"] if member["name"] == "alice")
    assert alice["active"] is True and alice["unread"] == 1


def test_empty_queue_says_what_was_scanned(ws, run_cli) -> None:
    worlds.team(ws)
    result = run_cli(ws.root, "status")
    assert result.code == 0
    assert "no decisions waiting — 1 team, 0 tasks scanned" in result.out


def test_s1_s4_hostile_text_is_sanitised(ws) -> None:
    worlds.team(ws)
    hostile = "\x1b]52;c;ZXZpbA==\x07[bold]x[/bold] \x1b[2J\u202eevil"
    send_message(ws, "alpha", "alice", hostile, summary=hostile)
    ws.team_config("alpha").write_text(
        ws.team_config("alpha")
        .read_text()
        .replace("the parser team", hostile.replace("\x1b", "\\u001b").replace("\x07", "\\u0007"))
    )
    text = render_status(build_snapshot(ws))
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "<U+202E>" in text
