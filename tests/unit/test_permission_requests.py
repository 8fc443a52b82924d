"""Permission requests are decisions: a teammate's permission_request
in the lead's inbox is in the one decision queue with its tool and input; approving or
denying writes Claude Code's permission_response (same request_id) to the requester's
inbox through the logged writer; answered or superseded requests leave the queue."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support import decision_world as world
from support.locations import FIXTURES

from teamdeck.errors import NotFound, Refused
from teamdeck.formats.claude_code.inbox import read_inbox
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.messaging.handshake_writes import deactivate_member
from teamdeck.protocol.team.permissions import answer_permission
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot


@pytest.fixture
def team_ws(tmp_path: Path) -> Workspace:
    return world.team_workspace(tmp_path / "ws")


def inbox(ws: Workspace, member: str, team: str = "alpha") -> list[dict]:
    return [entry.raw for entry in read_inbox(ws.inbox(team, member)).entries]


def log(ws: Workspace, team: str = "alpha") -> list[dict]:
    return [json.loads(line) for line in ws.messages_log(team).read_text().splitlines()]


def queue(ws: Workspace) -> list[str]:
    return [gate.key for gate in build_snapshot(ws).decisions]


def test_the_fixture_request_is_in_the_queue_with_its_tool_and_input() -> None:
    """The synthesized capture (Claude Code's field names): worker-b asks to run Bash."""
    snapshot = build_snapshot(Workspace.at(FIXTURES / "synthesized", read_only=True))
    [gate] = [gate for gate in snapshot.decisions if gate.kind == "permission"]
    assert gate.key == "permission:fixture-team:worker-b:perm-fixture-0001"
    assert (gate.tool, gate.member, gate.request_id, gate.reason) == (
        "Bash",
        "worker-b",
        "perm-fixture-0001",
        "Run npm install",
    )
    assert json.loads(gate.body) == {"command": "npm install"}
    assert gate.title == "worker-b asks to use Bash: Run npm install"


def test_requests_queue_oldest_first_among_the_other_decisions(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-2")
    team_ws.clock.advance(5)
    world.ask_permission(team_ws, "alpha", "alice", "perm-1", tool="Write", tool_input={"file_path": "a.py"})
    assert queue(team_ws) == ["permission:alpha:bob:perm-2", "permission:alpha:alice:perm-1"]


def test_approve_writes_a_success_response_with_the_same_id_and_the_input(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1", tool_input={"command": "npm install", "timeout": 60})
    sent = answer_permission(team_ws, "alpha", "BOB", "perm-1", approve=True, note="once only")
    assert sent.confirmed and sent.recipients == ("bob",)
    entry = inbox(team_ws, "bob")[-1]
    assert (entry["from"], entry["read"]) == ("team-lead", False)
    assert json.loads(entry["text"]) == {
        "type": "permission_response",
        "request_id": "perm-1",
        "subtype": "success",
        "response": {"updated_input": {"command": "npm install", "timeout": 60}, "permission_updates": []},
    }
    record = log(team_ws)[-1]
    assert (record["type"], record["to"], record["requestId"], record["reason"]) == (
        "permission_response",
        ["bob"],
        "perm-1",
        "once only",
    )
    request = next(raw for raw in inbox(team_ws, "team-lead") if "perm-1" in raw["text"])
    assert request["read"] is True  # a person has seen it
    assert queue(team_ws) == []
    [handshake] = build_ledger(team_ws, "alpha").handshakes
    assert (handshake.state, handshake.note) == ("answered", "success")


def test_deny_sends_the_note_as_the_error(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    world.ask_permission(team_ws, "alpha", "alice", "perm-2")
    answer_permission(team_ws, "alpha", "bob", "perm-1", approve=False, note="not on the CI box")
    answer_permission(team_ws, "alpha", "alice", "perm-2", approve=False)
    assert json.loads(inbox(team_ws, "bob")[-1]["text"]) == {
        "type": "permission_response",
        "request_id": "perm-1",
        "subtype": "error",
        "error": "not on the CI box",
    }
    assert json.loads(inbox(team_ws, "alice")[-1]["text"])["error"] == "Permission denied"
    assert queue(team_ws) == []


def test_an_answered_request_is_refused_and_nothing_is_written(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    answer_permission(team_ws, "alpha", "bob", "perm-1", approve=True)
    before = (team_ws.inbox("alpha", "bob").read_bytes(), team_ws.messages_log("alpha").read_bytes())
    with pytest.raises(Refused, match="perm-1: it is answered"):
        answer_permission(team_ws, "alpha", "bob", "perm-1", approve=False)
    assert (team_ws.inbox("alpha", "bob").read_bytes(), team_ws.messages_log("alpha").read_bytes()) == before


def test_a_request_asked_again_for_the_same_tool_use_is_superseded(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1", tool_use_id="toolu_1")
    team_ws.clock.advance(30)
    world.ask_permission(team_ws, "alpha", "bob", "perm-2", tool_use_id="toolu_1")
    assert queue(team_ws) == ["permission:alpha:bob:perm-2"]
    states = {h.request_id: h.state for h in build_ledger(team_ws, "alpha").handshakes}
    assert states == {"perm-1": "superseded", "perm-2": "awaiting_decision"}
    with pytest.raises(Refused, match="superseded"):
        answer_permission(team_ws, "alpha", "bob", "perm-1", approve=True)


def test_a_request_of_a_member_gone_offline_leaves_the_queue(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    deactivate_member(team_ws, "alpha", "bob", force=True, reason="gone")
    assert queue(team_ws) == []


def test_unknown_requests_and_members_are_not_found(team_ws: Workspace) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    with pytest.raises(NotFound, match="No permission_request 'perm-9' from 'bob'"):
        answer_permission(team_ws, "alpha", "bob", "perm-9", approve=True)
    with pytest.raises(NotFound, match="No permission_request 'perm-1' from 'alice'"):
        answer_permission(team_ws, "alpha", "alice", "perm-1", approve=True)
    with pytest.raises(NotFound, match="Unknown member 'carol'"):
        answer_permission(team_ws, "alpha", "carol", "perm-1", approve=True)


def test_cli_approve_and_deny_on_the_captured_fixture(tmp_path: Path, run_cli) -> None:
    root = tmp_path / "synthesized"
    shutil.copytree(FIXTURES / "synthesized", root)
    ws = Workspace.at(root)
    status = run_cli(root, "status")
    assert "permission perm-fixture-0001  worker-b asks to use Bash: Run npm install" in status.out
    denied = run_cli(root, "permission", "deny", "fixture-team", "worker-b", "perm-fixture-0001", "--note", "no")
    assert denied.code == 0, denied.err
    assert "permission denied (perm-fixture-0001)" in denied.out
    answer = json.loads(inbox(ws, "worker-b", "fixture-team")[-1]["text"])
    assert answer == {
        "type": "permission_response",
        "request_id": "perm-fixture-0001",
        "subtype": "error",
        "error": "no",
    }
    again = run_cli(root, "permission", "approve", "fixture-team", "worker-b", "perm-fixture-0001", "--json")
    assert again.code != 0 and "it is answered" in again.err
    assert json.loads(again.out)["ok"] is False
    assert "no decisions waiting" in run_cli(root, "status").out
