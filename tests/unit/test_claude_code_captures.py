"""Team files written by the pinned Claude Code (2.1.332), read by teamdeck.

The histories in tests/fixtures/claude-code/2.1.332/ hold every version of every file
the real client wrote during a scripted run (tests/support/claude_team_recorder.py; the live
run is tests/conformance/test_claude_code_team.py). Here they are replayed, version by
version, into a directory that teamdeck's live view refreshes after each write, as
``teamdeck tui`` would: so a change in how teamdeck reads what the client writes, or a
frame or field the client writes that FORMAT.md does not list, fails here without
Claude Code installed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.claude_format import listed_frames, not_in_format
from support.claude_team_recorder import Version, live_replay, load_history, team_of, until_cleanup, until_first
from support.locations import FIXTURES

from teamdeck.model.team import KINDS
from teamdeck.protocol.coordination.conversation import read_conversation
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.view.refresh.build import build_snapshot

CAPTURES = FIXTURES / "2.1.332"
HISTORIES = sorted(CAPTURES.glob("*/history.jsonl"))
IN_PROCESS = CAPTURES / "in-process-team" / "history.jsonl"
TMUX = CAPTURES / "tmux-team" / "history.jsonl"


@pytest.mark.parametrize("history", HISTORIES, ids=lambda path: path.parent.name)
def test_every_frame_and_field_the_client_wrote_is_in_format_md(history: Path) -> None:
    """Upgrading the pinned client (``make claude-code-lock VERSION=...``) and capturing
    again names here every frame type and field teamdeck has not seen yet."""
    unknown = not_in_format(load_history(history))
    assert not unknown, f"{history.parent.name}: not in FORMAT.md: {', '.join(unknown)}"


def test_the_frames_format_md_says_teamdeck_reads_are_the_ones_it_decodes() -> None:
    reads = {kind for kind, (_fields, teamdeck) in listed_frames().items() if teamdeck.startswith("reads")}
    assert reads == set(KINDS)


# --- replaying a capture through the live view -----------------------------------------


def before_teamdeck_wrote(history: Path) -> list[Version]:
    """The run up to teamdeck's first write (its messages.jsonl): the client's own work."""
    return until_first(load_history(history), "messages.jsonl")


def test_a_drained_idle_notification_still_makes_the_teammate_idle(tmp_path: Path) -> None:
    ws, snapshot = live_replay(before_teamdeck_wrote(IN_PROCESS), tmp_path / "claude")
    team = team_of(ws)
    assert ws.inbox(team, "team-lead").read_text() == "[]"  # the client drained everything
    (view,) = snapshot.teams
    assert [member.name for member in view.members] == ["team-lead", "bob"]  # alice shut down: removed
    bob = next(member for member in view.members if member.name == "bob")
    assert bob.status == "idle" and bob.since == "2026-11-26T15:23:48.962Z"
    lead = view.members[0]
    said = {(row.sender, row.summary) for row in lead.inbox}
    assert ("alice", "alice reports notes done") in said and ("bob", "bob reports files checked") in said
    assert all(row.read for row in lead.inbox)  # drained: delivered

    fresh = build_snapshot(ws)  # `teamdeck status` later: reads the record, writes nothing
    assert next(member for member in fresh.teams[0].members if member.name == "bob").status == "idle"

    talk = read_conversation(ws, team, "team-lead")
    assert ("received", "alice", "Alice to lead: the notes are written.") in {
        (row.direction, row.sender, row.text) for row in talk.rows
    }
    ledger = build_ledger(ws, team)
    (shutdown,) = [handshake for handshake in ledger.handshakes if handshake.kind == "shutdown"]
    assert shutdown.member == "alice" and shutdown.state == "offline"  # approved, then left the roster


def test_without_the_record_the_drain_loses_the_idle_state(tmp_path: Path) -> None:
    """What a reader that keeps nothing sees after the same run (teamdeck before issue
    17): the files alone, with the record removed."""
    ws, _snapshot = live_replay(before_teamdeck_wrote(IN_PROCESS), tmp_path / "claude")
    shutil.rmtree(ws.root / ".teamdeck")
    (view,) = build_snapshot(ws).teams
    bob = next(member for member in view.members if member.name == "bob")
    assert bob.status == "working" and not view.members[0].inbox


def test_teamdecks_shutdown_request_is_delivered_but_refused_and_doctor_says_so(tmp_path: Path) -> None:
    """teamdeck wrote a shutdown_request to bob; the client delivered it (drained) but bob's
    client refused to act on it (forged: not written by the lead's process), so bob went
    idle without answering: not consumed. The drain itself is no failure (no not_enqueued)."""
    ws, _snapshot = live_replay(until_cleanup(load_history(IN_PROCESS)), tmp_path / "claude")
    ledger = build_ledger(ws, team_of(ws))
    codes = {(finding.code, finding.member) for finding in ledger.findings}
    assert ("not_consumed", "bob") in codes
    assert not [finding for finding in ledger.findings if finding.code == "not_enqueued"]
    (request,) = [h for h in ledger.handshakes if h.kind == "shutdown" and h.member == "bob"]
    assert request.state == "awaiting_response"


def test_a_tmux_teammates_permission_request_waits_in_the_queue_after_the_drain(tmp_path: Path) -> None:
    ws, snapshot = live_replay(until_cleanup(load_history(TMUX)), tmp_path / "claude")
    team = team_of(ws)
    assert ws.inbox(team, "team-lead").read_text() == "[]"
    (gate,) = [gate for gate in snapshot.decisions if gate.kind == "permission"]
    assert gate.member == "bob" and gate.tool == "Bash" and gate.request_id.startswith("perm-")
    assert "touch bob-was-here.txt" in gate.body


def test_a_plan_request_is_in_the_queue_and_teamdecks_answer_leaves_it(tmp_path: Path) -> None:
    """A plan-mode tmux teammate (CLAUDE_CODE_PLAN_MODE_REQUIRED) asks; teamdeck approves
    (``plan approve``). Its model was then told "[Plan Rejected] ... could not be
    verified": teamdeck's answer is not the lead's (FORMAT.md)."""
    versions = until_cleanup(load_history(CAPTURES / "plan-mode-team" / "history.jsonl"))
    asked = until_first(versions, "messages.jsonl")
    _ws, snapshot = live_replay(asked, tmp_path / "asked")
    (gate,) = [gate for gate in snapshot.decisions if gate.kind == "plan-approval"]
    assert gate.member == "carol" and gate.request_id.startswith("plan_approval-") and "1. write x" in gate.body
    ws, snapshot = live_replay(versions, tmp_path / "answered")
    assert not [gate for gate in snapshot.decisions if gate.kind == "plan-approval"]
    assert ws.inbox(team_of(ws), "team-lead").read_text() == "[]"
