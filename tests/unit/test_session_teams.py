"""Claude Code 2.1.332's implicit session teams: a team named
``session-<8 hex>`` shows the session it belongs to, and when the client removes the
team's directory at the session's end (it renames it ``<team>.deleted-<uuid>`` first),
teamdeck still shows its last known roster and what was said, marked ended, with the
task list the client leaves behind.

The captured histories (tests/fixtures/claude-code/2.1.332/) are replayed, version by
version, through the live view (which records, as ``teamdeck tui`` does), cleanup
included. A damaged archive is logged and the team is simply gone (B4: never a crash).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.claude_team_recorder import live_replay, load_history, until_cleanup
from support.locations import FIXTURES

from teamdeck.protocol.team.archive import archive_path, session_of
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh

IN_PROCESS = FIXTURES / "2.1.332" / "in-process-team" / "history.jsonl"
TMUX = FIXTURES / "2.1.332" / "tmux-team" / "history.jsonl"


@pytest.mark.parametrize("history", [IN_PROCESS, TMUX], ids=["in-process", "tmux"])
def test_a_session_team_stays_readable_after_the_client_removes_it(tmp_path: Path, history: Path) -> None:
    versions = load_history(history)
    ws, live = live_replay(versions, tmp_path / "claude")
    assert not any((ws.root / "teams").glob("session-*/config.json"))  # the client removed it
    (team,) = live.teams  # its .deleted- tombstone is no team
    assert team.ended and team.name.startswith("session-")
    config = json.loads(
        next(v.text for v in reversed(until_cleanup(versions)) if v.text and v.path.endswith("config.json"))
    )
    assert team.session == config["leadSessionId"] and team.session.startswith(team.name[len("session-") :])
    assert [m.name for m in team.members] == [m["name"] for m in config["members"]]  # the last known roster
    assert {m.status for m in team.members} == {"offline"}
    lead = next(m for m in team.members if m.lead)
    assert any("bob" in row.sender for row in lead.inbox)  # what was said, from the observed record
    assert not [gate for gate in live.decisions if gate.team == team.name]  # nobody is there to answer
    (listing,) = live.team_tasks  # tasks/session-.../ stays
    assert listing.team == team.name and [task.id for task in listing.tasks] == ["1", "2"]
    again = build_snapshot(ws)  # a later start (status, a new tui) reads the same
    assert [(t.name, t.ended, len(t.members)) for t in again.teams] == [(team.name, True, len(team.members))]
    shown = next(m for m in again.teams[0].members if m.lead).inbox
    assert [row.summary for row in shown] == [row.summary for row in lead.inbox]


def test_while_the_session_runs_its_team_is_live_and_archived(tmp_path: Path) -> None:
    ws, live = live_replay(until_cleanup(load_history(TMUX)), tmp_path / "claude")
    (team,) = live.teams
    assert not team.ended and team.session.startswith("8088efc0")
    archived = json.loads(archive_path(ws, team.name).read_text())
    assert archived == json.loads(ws.team_config(team.name).read_text())


def test_a_command_that_only_reads_archives_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURES / "2.1.332" / "schema-frames", root)
    ws = Workspace.at(root)
    build_snapshot(ws)  # status, doctor...: no record, no archive
    assert not (root / ".teamdeck" / "archive").exists()
    build_snapshot(ws, record=True)
    assert archive_path(ws, "session-5f3a9c1e").exists()


def test_removing_the_directory_while_watching_ends_the_team(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURES / "2.1.332" / "schema-frames", root)
    ws = Workspace.at(root)
    live = build_snapshot(ws, record=True)
    said = [row.summary for row in live.teams[0].members[0].inbox]
    team_dir = ws.team_dir("session-5f3a9c1e")
    changed = [path for path in team_dir.rglob("*") if path.is_file()]
    shutil.rmtree(team_dir)
    live = refresh(live, changed)
    (team,) = live.teams
    assert team.ended and [row.summary for row in team.members[0].inbox] == said
    assert "ended" in team.members[1].detail


def test_a_session_task_list_whose_team_was_never_seen_is_shown(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURES / "2.1.332" / "schema-frames" / "tasks", root / "tasks")
    (listing,) = build_snapshot(Workspace.at(root)).team_tasks
    assert listing.team == "session-5f3a9c1e" and len(listing.tasks) == 3


def test_a_damaged_archive_is_logged_and_the_team_is_gone(tmp_path: Path, caplog) -> None:
    root = tmp_path / "ws"
    ws = Workspace.at(root)
    path = archive_path(ws, "session-0badc0de")
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert build_snapshot(ws).teams == ()
    assert "unreadable archived roster" in caplog.text


def test_only_session_teams_name_a_session() -> None:
    assert session_of("alpha", None) == ""
    assert session_of("session-1a2b3c4d", None) == "1a2b3c4d"
    assert session_of("session-zz2b3c4d", None) == ""


def test_inbox_and_doctor_read_an_ended_team_as_the_tui_does(tmp_path: Path, run_cli) -> None:
    """``teamdeck inbox`` and ``doctor`` on a team whose directory the client removed:
    its archived roster and the recorded messages (what the TUI shows), marked ended,
    instead of "not found"; ``inbox --inject`` is refused in one line (nobody reads
    those inboxes) and writes nothing; a team never seen is still not found (B16: a
    missing directory is read from what was kept, not an error)."""
    root = tmp_path / "ws"
    shutil.copytree(FIXTURES / "2.1.332" / "schema-frames", root)
    ws = Workspace.at(root)
    build_snapshot(ws, record=True)  # a live view saw the team: archived and recorded
    team = "session-5f3a9c1e"
    shutil.rmtree(ws.team_dir(team))
    (shown,) = build_snapshot(ws).teams
    said = [row.summary for row in next(m for m in shown.members if m.lead).inbox]
    assert shown.ended and said

    listed = run_cli(root, "inbox", team, "team-lead", "--json")
    assert listed.code == 0, listed.err
    assert listed.json["ended"] is True and len(listed.json["messages"]) == len(said)
    text = run_cli(root, "inbox", team, "team-lead").out
    assert text.startswith(f"team {team} has ended: its last known roster and the messages teamdeck recorded")
    assert "alice -> team-lead  task_completed" in text

    before = sorted(path.relative_to(root) for path in root.rglob("*"))
    injected = run_cli(root, "inbox", team, "alice", "--inject")
    assert injected.code != 0 and injected.err.count("\n") == 1
    assert f"team {team} has ended (its directory is gone) and nobody reads its inboxes" in injected.err
    assert sorted(path.relative_to(root) for path in root.rglob("*")) == before

    doctor = run_cli(root, "doctor", team)
    assert doctor.code == 0, doctor.out + doctor.err  # its failures are history
    assert "  ended: its directory is gone (its session is over)" in doctor.out
    assert "carol's turn failed" in doctor.out and "team delete would be refused" not in doctor.out
    every = run_cli(root, "doctor", "--json")
    assert [(report["team"], report["ended"]) for report in every.json["teams"]] == [(team, True)]

    for args in (("inbox", "session-0000aaaa", "alice"), ("doctor", "session-0000aaaa")):
        missing = run_cli(root, *args)
        assert missing.code != 0 and "not found" in missing.err
