"""Stuck shutdowns: a shutdown_request with no reply past the timeout
(default 2 min, ``shutdownTimeoutSeconds`` in .teamdeck.yaml) is overdue - in the roster,
in the decision queue, and "not offline" for doctor - and can be resent (new requestId,
the old one recorded as superseded) or forced offline (the reason in messages.jsonl)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import decision_world as world

from teamdeck.errors import Refused
from teamdeck.formats.claude_code.inbox import read_inbox
from teamdeck.model.team import ShutdownApproved
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.messaging.handshake_writes import deactivate_member, request_shutdown
from teamdeck.protocol.team.messaging.sending import send_structured
from teamdeck.protocol.team.shutdown_resend import resend_shutdown
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh, retime


@pytest.fixture
def team_ws(tmp_path: Path) -> Workspace:
    return world.team_workspace(tmp_path / "ws")


def log(ws: Workspace) -> list[dict]:
    return [json.loads(line) for line in ws.messages_log("alpha").read_text().splitlines()]


def requests_to(ws: Workspace, member: str) -> list[dict]:
    return [
        json.loads(entry.raw["text"])
        for entry in read_inbox(ws.inbox("alpha", member)).entries
        if '"shutdown_request"' in entry.raw["text"]
    ]


def test_overdue_at_the_timeout_and_reported_as_not_offline(team_ws: Workspace) -> None:
    sent = request_shutdown(team_ws, "alpha", "alice", reason="done")
    team_ws.clock.advance(119)
    [waiting] = build_ledger(team_ws, "alpha").handshakes
    assert (waiting.state, waiting.overdue, waiting.failure) == ("awaiting_response", False, None)
    team_ws.clock.advance(1)
    ledger = build_ledger(team_ws, "alpha")
    [stuck] = ledger.handshakes
    assert (stuck.state, stuck.overdue, stuck.failure, stuck.is_open) == (
        "awaiting_response",
        True,
        "not_offline",
        True,
    )
    assert stuck.detail.startswith(f"awaiting shutdown_response from alice since {sent.timestamp}")
    assert [(f.code, f.member, f.request_id) for f in ledger.failures] == [("not_offline", "alice", sent.request_id)]


def test_the_queue_and_roster_show_it_once_time_has_passed(team_ws: Workspace) -> None:
    sent = request_shutdown(team_ws, "alpha", "alice")
    snapshot = build_snapshot(team_ws)
    assert snapshot.decisions == () and snapshot.member("alpha/alice").status == "shutdown-requested"
    team_ws.clock.advance(121)
    later = retime(snapshot)  # no file changed: the clock alone
    [gate] = later.decisions
    assert (gate.key, gate.kind, gate.member, gate.request_id) == (
        f"shutdown:alpha:alice:{sent.request_id}",
        "shutdown-stuck",
        "alice",
        sent.request_id,
    )
    assert gate.title == f"awaiting shutdown_response since {sent.timestamp}"
    alice = later.member("alpha/alice")
    assert (alice.status, alice.since, alice.pending_shutdown) == ("shutdown-stuck", sent.timestamp, sent.request_id)
    assert alice.detail.startswith(f"awaiting shutdown_response since {sent.timestamp}")
    assert retime(later) is later  # nothing more changes with time


def test_the_timeout_is_a_workspace_setting(team_ws: Workspace) -> None:
    request_shutdown(team_ws, "alpha", "alice")
    settings = team_ws.root / ".teamdeck.yaml"
    settings.write_text("shutdownTimeoutSeconds: 600\n")
    team_ws.clock.advance(300)
    snapshot = build_snapshot(team_ws)
    assert snapshot.decisions == ()
    settings.write_text("shutdownTimeoutSeconds: 30\n")
    assert [gate.kind for gate in refresh(snapshot, [settings]).decisions] == ["shutdown-stuck"]


def test_a_reply_in_time_is_never_stuck(team_ws: Workspace) -> None:
    sent = request_shutdown(team_ws, "alpha", "alice")
    send_structured(
        team_ws, "alpha", "team-lead", ShutdownApproved(requestId=sent.request_id, from_="alice"), sender="alice"
    )
    team_ws.clock.advance(3600)
    assert [gate.kind for gate in build_snapshot(team_ws).decisions] == []


def test_resend_supersedes_the_old_request_in_messages_jsonl(team_ws: Workspace) -> None:
    old = request_shutdown(team_ws, "alpha", "alice", reason="work complete")
    team_ws.clock.advance(180)
    resent = resend_shutdown(team_ws, "alpha", "alice")
    assert resent.superseded == (old.request_id,) and resent.sent.request_id != old.request_id
    new_request = requests_to(team_ws, "alice")[-1]
    assert (new_request["requestId"], new_request["reason"]) == (resent.sent.request_id, "work complete")
    note = log(team_ws)[-1]
    assert (note["type"], note["member"], note["requestId"], note["ref"]) == (
        "shutdown_superseded",
        "alice",
        old.request_id,
        resent.sent.id,
    )
    states = {h.request_id: (h.state, h.overdue) for h in build_ledger(team_ws, "alpha").handshakes}
    assert states == {old.request_id: ("superseded", False), resent.sent.request_id: ("awaiting_response", False)}
    assert build_snapshot(team_ws).decisions == ()  # the new one has its own two minutes


def test_resend_is_refused_when_nothing_awaits_a_reply(team_ws: Workspace) -> None:
    with pytest.raises(Refused, match="none is awaiting a reply"):
        resend_shutdown(team_ws, "alpha", "alice")
    assert not team_ws.inbox("alpha", "alice").exists() or requests_to(team_ws, "alice") == []


def test_force_offline_records_the_reason_and_closes_the_handshake(team_ws: Workspace) -> None:
    sent = request_shutdown(team_ws, "alpha", "alice")
    team_ws.clock.advance(200)
    deactivate_member(team_ws, "alpha", "alice", force=True, reason="pane closed, no reply")
    config = json.loads(team_ws.team_config("alpha").read_text())
    assert next(m for m in config["members"] if m["name"] == "alice")["isActive"] is False
    record = log(team_ws)[-1]
    assert (record["type"], record["member"], record["reason"]) == (
        "member_deactivated",
        "alice",
        "pane closed, no reply",
    )
    [handshake] = build_ledger(team_ws, "alpha").handshakes
    assert (handshake.request_id, handshake.state, handshake.failure) == (sent.request_id, "offline", None)
    assert build_snapshot(team_ws).decisions == ()


def test_cli_doctor_resend_and_force(tmp_path: Path, run_cli) -> None:
    """The CLI runs on the real clock: a request made at the test's fixed moment (in
    the past) is long overdue."""
    root = tmp_path / "ws"
    root.mkdir()
    ws = Workspace.at(root, clock=world.MovableClock(), actor="human:tester")
    world.team(ws)
    old = request_shutdown(ws, "alpha", "alice")
    doctor = run_cli(root, "doctor", "alpha")
    assert f"not offline: awaiting shutdown_response from alice since {old.timestamp}" in doctor.out
    resent = run_cli(root, "shutdown", "alpha", "alice", "--resend", "--json")
    assert resent.code == 0, resent.err
    data = json.loads(resent.out)
    assert data["superseded"] == [old.request_id] and data["requestId"] != old.request_id
    assert [r["type"] for r in log(ws)[-2:]] == ["shutdown_request", "shutdown_superseded"]
    forced = run_cli(root, "member", "deactivate", "alpha", "alice", "--force", "--reason", "gone for good")
    assert forced.code == 0, forced.err
    assert (log(ws)[-1]["type"], log(ws)[-1]["reason"]) == ("member_deactivated", "gone for good")
    assert "not offline" not in run_cli(root, "doctor", "alpha").out
