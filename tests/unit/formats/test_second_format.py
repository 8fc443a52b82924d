"""A second team format is one package plus its registration: a team kept in the fixture
format (tests/support/fixture_format/: other file names, other field names, its own
lock), registered through the ``teamdeck.team_formats`` entry-point group as a package
outside teamdeck would be, gets its roster, inbox, decisions, ``send`` and ``shutdown``
from the very protocol and view functions the CLI calls - no module under src/ names it."""

from __future__ import annotations

import importlib.metadata
import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.fixture_format.format import FixtureFormat

from teamdeck.decisions.registry import answer_decision, find_decision
from teamdeck.formats import registry
from teamdeck.model.team import PlanApprovalRequest
from teamdeck.protocol.team.messaging import handshake_writes as handshakes
from teamdeck.protocol.team.messaging import injection, reading
from teamdeck.protocol.team.messaging.sending import send_message, send_structured
from teamdeck.protocol.team.teams import add_member, list_teams, read_team
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

TEAM = "crew"


@pytest.fixture
def fixture_format(monkeypatch: pytest.MonkeyPatch) -> Iterator[FixtureFormat]:
    """The fixture format, registered as a package outside teamdeck registers one (the
    format object the registry made from it is returned: its lock is counted)."""
    point = importlib.metadata.EntryPoint(
        "fixture", "support.fixture_format.format:FixtureFormat", registry.ENTRY_POINT_GROUP
    )
    everything = importlib.metadata.entry_points

    def entry_points(**params: str) -> object:
        return [point] if params.get("group") == registry.ENTRY_POINT_GROUP else everything(**params)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    registry.outside_formats.cache_clear()
    (made,) = registry.outside_formats()
    assert isinstance(made, FixtureFormat)
    yield made
    registry.outside_formats.cache_clear()


@pytest.fixture
def crew(ws: Workspace, fixture_format: FixtureFormat) -> Workspace:
    """A team made by its own tool in the fixture format: the lead and alice."""
    fixture_format.create_team(
        ws,
        TEAM,
        {"name": TEAM, "description": "a crew", "leadAgentId": f"team-lead@{TEAM}", "members": [{"name": "team-lead"}]},
    )
    add_member(ws, TEAM, "alice")
    return ws


def letters(ws: Workspace, member: str) -> list[dict[str, Any]]:
    return json.loads((ws.team_dir(TEAM) / "mail" / f"{member}.mail").read_text())


def test_the_team_is_found_in_its_format_and_its_roster_read_and_changed_through_it(
    crew: Workspace, fixture_format: FixtureFormat
) -> None:
    assert registry.team_format(crew, TEAM) is fixture_format
    assert list_teams(crew) == [TEAM]
    assert [member.name for member in read_team(crew, TEAM).members] == ["team-lead", "alice"]
    crew_file = json.loads((crew.team_dir(TEAM) / "crew.json").read_text())
    assert crew_file["title"] == TEAM and [person["handle"] for person in crew_file["people"]] == ["team-lead", "alice"]
    assert not (crew.team_dir(TEAM) / "config.json").exists()  # nothing of Claude Code's
    assert fixture_format.lock_takes >= 2  # its own lock: the creation and the new member


def test_the_roster_panel_shows_the_team(crew: Workspace) -> None:
    snapshot = build_snapshot(crew)
    (team,) = snapshot.teams
    assert team.name == TEAM and [member.name for member in team.members] == ["team-lead", "alice"]
    assert not snapshot.problems


def test_send_writes_a_letter_and_the_inbox_reads_and_delivers_it(crew: Workspace) -> None:
    sent = send_message(crew, TEAM, "alice", "hello [b]there[/b]", summary="greeting")
    assert sent.confirmed
    (letter,) = letters(crew, "alice")
    assert letter["sender"] == "team-lead" and letter["body"] == "hello [b]there[/b]" and letter["gist"] == "greeting"
    assert letter["seen"] is False
    (entry,) = reading.list_inbox(crew, TEAM, "alice", unread_only=True)
    assert entry.message is not None and entry.message.from_ == "team-lead" and entry.kind is not None
    assert entry.kind.KIND == "plain"
    (injected,) = injection.inject(crew, TEAM, "alice")
    assert injected.text == "hello [b]there[/b]" and injected.sender == "team-lead"
    assert letters(crew, "alice")[0]["seen"] is True
    assert reading.list_inbox(crew, TEAM, "alice", unread_only=True) == []


def test_a_new_letter_reaches_the_view_through_a_watcher_batch(crew: Workspace) -> None:
    def unread(snapshot: WorkspaceSnapshot) -> int:
        (team,) = snapshot.teams
        return {member.name: member.unread for member in team.members}["alice"]

    snapshot = build_snapshot(crew)
    assert unread(snapshot) == 0
    send_message(crew, TEAM, "alice", "first", summary="s")
    assert unread(refresh(snapshot, [crew.team_dir(TEAM) / "mail" / "alice.mail"])) == 1


def test_shutdown_is_asked_answered_and_the_member_made_inactive(crew: Workspace) -> None:
    asked = handshakes.request_shutdown(crew, TEAM, "alice", reason="done")
    (letter,) = letters(crew, "alice")
    assert letter["kind"] == "shutdown_request" and letter["fields"]["requestId"] == asked.request_id
    handshakes.respond_shutdown(crew, TEAM, asked.request_id, approve=True, sender="alice")
    (answer,) = letters(crew, "team-lead")
    assert answer["kind"] == "shutdown_approved" and answer["fields"]["requestId"] == asked.request_id
    alice = read_team(crew, TEAM).member("alice")
    assert alice is not None and not alice.isActive
    (team,) = build_snapshot(crew).teams
    assert {member.name: member.active for member in team.members}["alice"] is False


def test_a_plan_request_is_a_decision_and_answering_it_writes_the_response(crew: Workspace) -> None:
    request = PlanApprovalRequest(from_="alice", requestId="plan-1", planFilePath="p.md", planContent="1. parse")
    send_structured(crew, TEAM, "team-lead", request, sender="alice")
    snapshot = build_snapshot(crew)
    (decision,) = [decision for decision in snapshot.decisions if decision.kind == "plan-approval"]
    assert decision.team == TEAM and decision.member == "alice" and decision.request_id == "plan-1"
    answer_decision(crew, find_decision(snapshot, decision.key), "approve", "go")
    (response,) = letters(crew, "alice")
    assert response["kind"] == "plan_approval_response"
    assert response["fields"] == {"requestId": "plan-1", "approved": True, "feedback": "go", **response["fields"]}
    assert not [decision for decision in build_snapshot(crew).decisions if decision.kind == "plan-approval"]
