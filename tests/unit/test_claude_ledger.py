"""The handshake ledger: correlation by request id and the seed's failure classes (§8)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.locations import FIXTURES

from teamdeck.errors import Refused, WriteFailed
from teamdeck.formats.claude_code import inbox as inbox_store
from teamdeck.formats.inboxes import Delivery
from teamdeck.model.team import IdleNotification, PlanApprovalRequest
from teamdeck.protocol.team import teams
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.messaging import handshake_writes as handshakes
from teamdeck.protocol.team.messaging import injection, sending
from teamdeck.store.workspace import Workspace

TEAM = "team-smoke"
START = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves forward."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def team_ws(tmp_path: Path, clock: Clock) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    ws = Workspace.at(root, clock=clock, actor="human:tester")
    teams.create_team(ws, TEAM)
    teams.add_member(ws, TEAM, "agent-a")
    teams.add_member(ws, TEAM, "agent-b", plan_mode=True)
    return ws


def idle(ws: Workspace, member: str, reason: str = "available") -> None:
    """``member`` ends a turn: an idle notification to the lead, stamped now."""
    from teamdeck.clock import iso

    sending.send_structured(
        ws,
        TEAM,
        "team-lead",
        IdleNotification(from_=member, timestamp=iso(ws.clock()), idleReason=reason),
        sender=member,
    )


def failures(ledger) -> list[tuple[str, str | None]]:
    return [(finding.code, finding.member) for finding in ledger.failures]


def test_a_fresh_team_is_healthy_and_every_teammate_blocks_delete(team_ws: Workspace) -> None:
    ledger = build_ledger(team_ws, TEAM)
    assert ledger.healthy and ledger.handshakes == [] and ledger.findings == []
    assert ledger.delete_blockers == ["agent-a", "agent-b"]
    assert [(m.name, m.lead, m.active, m.unread) for m in ledger.members] == [
        ("team-lead", True, True, 0),
        ("agent-a", False, True, 0),
        ("agent-b", False, True, 0),
    ]


def test_c11_shutdown_awaiting_then_approved_then_offline(team_ws: Workspace, clock: Clock) -> None:
    request = handshakes.request_shutdown(team_ws, TEAM, "agent-a").request_id
    [pending] = build_ledger(team_ws, TEAM).handshakes
    assert (pending.kind, pending.state, pending.failure, pending.is_open) == (
        "shutdown",
        "awaiting_response",
        None,
        True,
    )
    assert pending.detail == "awaiting shutdown_response from agent-a since 2026-03-01T12:00:00.000Z"
    clock.advance(5)
    handshakes.respond_shutdown(team_ws, TEAM, request, approve=True, sender="agent-a")
    [done] = build_ledger(team_ws, TEAM).handshakes
    assert (done.state, done.reply, done.replied_at, done.failure) == (
        "offline",
        "shutdown_approved",
        "2026-03-01T12:00:05.000Z",
        None,
    )


def test_not_offline_when_an_approved_member_stays_active() -> None:
    ledger = build_ledger(Workspace.at(FIXTURES / "synthesized"), "fixture-team")
    assert failures(ledger) == [("not_offline", "worker-a")]
    shutdown = ledger.handshakes[0]
    assert (shutdown.request_id, shutdown.state, shutdown.is_open) == (
        "shutdown-1772359500000@worker-a",
        "approved",
        True,
    )


def test_deactivating_the_stuck_member_clears_not_offline(tmp_path: Path) -> None:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "synthesized", root)
    ws = Workspace.at(root)
    assert handshakes.deactivate_member(ws, "fixture-team", "worker-a") == "worker-a"  # guarded: it approved
    ledger = build_ledger(ws, "fixture-team")
    assert ledger.failures == [] and ledger.handshakes[0].state == "offline"
    assert ledger.delete_blockers == ["worker-b"]


def test_not_injected_when_unread_after_the_recipient_went_idle(team_ws: Workspace, clock: Clock) -> None:
    sending.send_message(team_ws, TEAM, "agent-a", "please rebase", summary="rebase")
    request = handshakes.request_shutdown(team_ws, TEAM, "agent-b").request_id
    assert build_ledger(team_ws, TEAM).failures == []  # nobody has had a turn yet
    clock.advance(30)
    idle(team_ws, "agent-a")
    idle(team_ws, "agent-b")
    ledger = build_ledger(team_ws, TEAM)
    assert sorted(failures(ledger)) == [("not_injected", "agent-a"), ("not_injected", "agent-b")]
    handshake = ledger.handshakes[0]
    assert handshake.request_id == request and handshake.failure == "not_injected"


def test_not_consumed_when_read_and_no_reply_after_a_turn(team_ws: Workspace, clock: Clock) -> None:
    handshakes.request_shutdown(team_ws, TEAM, "agent-a")
    injection.inject(team_ws, TEAM, "agent-a")
    assert build_ledger(team_ws, TEAM).handshakes[0].state == "awaiting_response"
    clock.advance(10)
    idle(team_ws, "agent-a")
    ledger = build_ledger(team_ws, TEAM)
    assert failures(ledger) == [("not_consumed", "agent-a")]
    assert "went idle without a shutdown_response" in ledger.failures[0].detail


def test_not_enqueued_when_the_delivery_failed(team_ws: Workspace, monkeypatch) -> None:
    def full_disk(path, message, **options):
        raise WriteFailed("No space left on device writing agent-a.json; nothing was written")

    monkeypatch.setattr("teamdeck.formats.claude_code.inbox.append_message", full_disk)
    with pytest.raises(
        WriteFailed,
        match=r"^Could not deliver to 'agent-a': No space left .* logged in teams/team-smoke/messages.jsonl as \w{26}; delivered so far: none$",
    ):
        sending.send_message(team_ws, TEAM, "agent-a", "x", summary="s")
    monkeypatch.undo()
    log = [json.loads(line) for line in team_ws.messages_log(TEAM).read_text().splitlines()]
    assert [r["type"] for r in log][-2:] == ["message", "delivery_failed"]
    assert log[-1]["ref"] == log[-2]["id"]
    ledger = build_ledger(team_ws, TEAM)
    assert failures(ledger) == [("not_enqueued", "agent-a")]
    assert ledger.failures[0].log_id == log[-2]["id"] and "delivery failed: No space left" in ledger.failures[0].detail


def test_an_unconfirmed_delivery_is_flagged_and_logged(team_ws: Workspace, monkeypatch) -> None:
    monkeypatch.setattr(
        "teamdeck.formats.claude_code.inbox.append_message", lambda path, message, **o: Delivery(path, False, 3)
    )
    sent = sending.send_message(team_ws, TEAM, "agent-a", "x", summary="s")
    assert not sent.confirmed and sent.to_json()["unconfirmed"] == ["agent-a.json"]
    log = [json.loads(line) for line in team_ws.messages_log(TEAM).read_text().splitlines()]
    assert log[-1]["type"] == "delivery_unconfirmed" and log[-1]["ref"] == sent.id
    assert failures(build_ledger(team_ws, TEAM)) == [("not_enqueued", "agent-a")]  # it really is not there


def test_team_delete_blocked_until_the_blockers_are_offline(team_ws: Workspace) -> None:
    with pytest.raises(Refused):
        teams.delete_team(team_ws, TEAM)
    ledger = build_ledger(team_ws, TEAM)
    assert failures(ledger) == [("team_delete_blocked", None)]
    assert ledger.failures[0].detail.endswith("still blocked by 2 active member(s): agent-a, agent-b")
    handshakes.deactivate_member(team_ws, TEAM, "agent-a", force=True)
    handshakes.deactivate_member(team_ws, TEAM, "agent-b", force=True)
    assert build_ledger(team_ws, TEAM).failures == []


def test_idle_notifications_are_folded_per_member(team_ws: Workspace, clock: Clock) -> None:
    idle(team_ws, "agent-a", "interrupted")
    clock.advance(1)
    idle(team_ws, "agent-a", "available")
    idle(team_ws, "agent-b", "failed")
    clock.advance(1)
    sending.send_message(team_ws, TEAM, "team-lead", "back at work", summary="b", sender="agent-b")
    folds = build_ledger(team_ws, TEAM).idles
    assert list(folds) == ["agent-a", "agent-b"]
    a, b = folds["agent-a"], folds["agent-b"]
    assert (a.count, a.last_reason, a.last_at, a.idle_since) == (
        2,
        "available",
        "2026-03-01T12:00:01.000Z",
        "2026-03-01T12:00:01.000Z",
    )
    assert (b.count, b.last_reason, b.idle_since) == (1, "failed", None)  # it spoke after going idle


def test_plans_are_correlated_with_their_answers(team_ws: Workspace) -> None:
    sending.send_structured(
        team_ws, TEAM, "team-lead", PlanApprovalRequest(requestId="plan-1", from_="agent-b"), sender="agent-b"
    )
    [waiting] = build_ledger(team_ws, TEAM).handshakes
    assert (waiting.kind, waiting.state, waiting.member, waiting.answerer) == (
        "plan",
        "awaiting_decision",
        "agent-b",
        "team-lead",
    )
    handshakes.answer_plan(team_ws, TEAM, "agent-b", approve=False, feedback="needs tests")
    [answered] = build_ledger(team_ws, TEAM).handshakes
    assert (answered.state, answered.note, answered.is_open) == ("rejected", "needs tests", False)


def test_non_members_unreadable_inboxes_and_bad_entries_are_reported(team_ws: Workspace) -> None:
    sending.send_message(team_ws, TEAM, "agent-a", "fine", summary="s")
    (team_ws.inboxes_dir(TEAM) / "ghost.json").write_text(
        json.dumps([{"from": "x", "text": "boo", "timestamp": "t", "read": False}])
    )
    team_ws.inbox(TEAM, "agent-b").write_text('{"not": "an array"}')
    team_ws.inbox(TEAM, "team-lead").write_text(
        '[1, {"from": "agent-a", "text": "ok", "timestamp": "t", "read": true}]'
    )
    (team_ws.inboxes_dir(TEAM) / "bad name!.json").write_text("[]")
    ledger = build_ledger(team_ws, TEAM)
    notices = {(finding.code, finding.member): finding.detail for finding in ledger.findings}
    assert notices[("non_member", "ghost")] == "inbox ghost.json holds 1 message(s) for 'ghost', who is not a member"
    assert (
        notices[("unreadable_inbox", "agent-b")] == "inbox agent-b.json unreadable: expected a JSON array (got object)"
    )
    assert notices[("bad_entry", "team-lead")] == "inbox team-lead.json entry 1: not a JSON object"
    assert any(code == "ignored" for code, _member in notices)
    assert [m.unread for m in ledger.members] == [0, 1, 0]  # the other inboxes are still read
    assert ledger.healthy


def test_messages_logged_to_someone_no_longer_in_the_roster_are_reported(team_ws: Workspace) -> None:
    sending.send_message(team_ws, TEAM, "agent-b", "x", summary="s")
    raw = json.loads(team_ws.team_config(TEAM).read_text())
    raw["members"] = [m for m in raw["members"] if m["name"] != "agent-b"]  # older Claude Code removes members
    team_ws.team_config(TEAM).write_text(json.dumps(raw))
    codes = [(f.code, f.member) for f in build_ledger(team_ws, TEAM).findings]
    assert ("non_member", "agent-b") in codes


def test_b15_a_busy_lead_inbox_builds_a_ledger(team_ws: Workspace, clock: Clock) -> None:
    from teamdeck.clock import iso
    from teamdeck.formats.claude_code.json_files import encode_pretty

    entries = []
    for n in range(1200):
        clock.advance(1)
        member = "agent-a" if n % 2 else "agent-b"
        text = (
            IdleNotification(from_=member, timestamp=iso(clock()), idleReason="available").to_text()
            if n % 5 < 2
            else f"progress {n}: " + "x" * 1400
        )
        entries.append({"from": member, "text": text, "summary": "p", "timestamp": iso(clock()), "read": n < 1000})
    team_ws.inbox(TEAM, "team-lead").write_bytes(encode_pretty(entries))
    assert team_ws.inbox(TEAM, "team-lead").stat().st_size > 1_000_000
    ledger = build_ledger(team_ws, TEAM)
    assert ledger.members[0].messages == 1200 and ledger.members[0].unread == 200
    assert ledger.idles["agent-a"].count + ledger.idles["agent-b"].count == 480


def test_inboxes_are_read_not_written_by_the_ledger(team_ws: Workspace) -> None:
    handshakes.request_shutdown(team_ws, TEAM, "agent-a")
    before = {path: path.read_bytes() for path in team_ws.root.rglob("*") if path.is_file()}
    build_ledger(team_ws._replace(read_only=True), TEAM)
    assert {path: path.read_bytes() for path in team_ws.root.rglob("*") if path.is_file()} == before
    assert inbox_store.read_inbox(team_ws.inbox(TEAM, "agent-a")).unread


def test_team_log_reads_only_what_was_appended_and_starts_over_on_a_new_file(tmp_path):
    """The live view's TeamLog: appended records are added, a replaced log is read afresh."""
    from teamdeck.protocol.team.teamlog import TeamLog, log, new_record
    from teamdeck.store.workspace import Workspace

    ws = Workspace.at(tmp_path)
    ws.team_dir("alpha").mkdir(parents=True)
    reader = TeamLog(ws, "alpha")
    assert reader.read() == ([], [])
    first = log(ws, "alpha", new_record(ws, "message", from_="team-lead", to=["w1"], summary="one"))
    log(ws, "alpha", new_record(ws, "message", from_="team-lead", to=["w1"], summary="two"))
    assert [record.summary for record in reader.read()[0]] == ["one", "two"]
    with open(ws.messages_log("alpha"), "ab") as handle:
        handle.write(b'{"id": "x"}\n')
    records, bad = reader.read()
    assert len(records) == 2 and len(bad) == 1 and "record 3" in bad[0]
    path = ws.messages_log("alpha")
    replacement = path.with_name("new.jsonl")
    replacement.write_text(json.dumps(first.to_json()) + "\n")
    replacement.replace(path)
    records, bad = reader.read()
    assert [record.summary for record in records] == ["one"] and bad == []
