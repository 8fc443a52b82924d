"""Issue 9 item 2: a team's Claude Code task list (``tasks/<team>/<n>.json``) read live
and changed as Claude Code's TaskUpdate does: under the list's lock, round-trip exact,
bad files reported with their path and nothing else hidden."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
import textwrap
import time
from datetime import timedelta
from pathlib import Path

import pytest
from support.locations import FIXED_NOW, FIXTURES

from teamdeck.clock import fixed_clock
from teamdeck.errors import Busy, NotFound, Refused
from teamdeck.formats.claude_code.tasks import encode_like, read_claude_tasks, update_task_file
from teamdeck.model.team import decode_text
from teamdeck.protocol.team.task_list import update_team_task
from teamdeck.shapes.snapshot import snapshot_json
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh, retime

TEAM = "analysis-team"


@pytest.fixture
def captured(tmp_path: Path) -> Workspace:
    """A copy of the captured analysis-team plus its task list (Claude Code's format:
    ``JSON.stringify(task, null, 2)``, epoch-ms timestamps, internal trackers)."""
    shutil.copytree(FIXTURES / "analysis-team", tmp_path / "ws")
    return Workspace.at(tmp_path / "ws", clock=fixed_clock(FIXED_NOW))


@pytest.fixture
def compact(tmp_path: Path) -> Workspace:
    """The synthesized team, whose task files are one compact line each."""
    shutil.copytree(FIXTURES / "synthesized", tmp_path / "ws")
    return Workspace.at(tmp_path / "ws", clock=fixed_clock(FIXED_NOW))


def task_path(ws: Workspace, team: str, task_id: str) -> Path:
    return ws.claude_tasks_dir(team) / f"{task_id}.json"


# --- writes ---------------------------------------------------------------------------


def test_reassign_round_trips_exactly_in_claude_codes_pretty_format(captured):
    ws = captured
    path = task_path(ws, TEAM, "2")
    before = path.read_bytes()
    raw = json.loads(before)
    done = update_team_task(ws, TEAM, "2", owner="MESSAGE-ANALYST")
    expected = dict(raw, owner="message-analyst", updatedAt=int(FIXED_NOW.timestamp() * 1000))
    assert path.read_bytes() == json.dumps(expected, indent=2, ensure_ascii=False).encode()
    assert list(json.loads(path.read_bytes())) == list(raw)  # key order kept
    assert (done.before.owner, done.after.owner, done.told) == ("config-analyst", "message-analyst", "message-analyst")
    assignment = json.loads(ws.inbox(TEAM, "message-analyst").read_text())[-1]
    kind = decode_text(assignment["text"])
    assert assignment["from"] == "team-lead" and kind.KIND == "task_assignment" and kind.taskId == "2"
    assert (ws.claude_tasks_dir(TEAM) / ".lock").read_bytes() == b""  # the lock file stays empty
    assert not (ws.claude_tasks_dir(TEAM) / ".lock.lock").exists()  # and the lock was released


def test_status_change_round_trips_a_compact_file_and_keeps_unknown_fields(compact):
    ws = compact
    path = task_path(ws, "fixture-team", "2")
    raw = json.loads(path.read_bytes())
    raw["x-extension"] = {"kept": [1, "two"]}
    path.write_text(json.dumps(raw, separators=(",", ":")))
    done = update_team_task(ws, "fixture-team", "2", status="in_progress")
    expected = json.dumps(dict(raw, status="in_progress"), separators=(",", ":")).encode()
    assert path.read_bytes() == expected  # no updatedAt in the file: none added
    assert done.told is None and done.changed
    again = update_team_task(ws, "fixture-team", "2", status="in_progress")
    assert not again.changed and path.read_bytes() == expected


def test_encode_like_keeps_the_trailing_newline_and_non_ascii():
    assert encode_like(b'{"a": 1}\n', {"a": "\u00e9"}) == '{"a":"\u00e9"}\n'.encode()
    assert encode_like(b'{\n  "a": 1\n}', {"a": 2}) == b'{\n  "a": 2\n}'


def test_refusals_write_nothing(compact):
    ws = compact
    before = {path.name: path.read_bytes() for path in ws.claude_tasks_dir("fixture-team").iterdir()}
    with pytest.raises(Refused, match="say what to change"):
        update_team_task(ws, "fixture-team", "2")
    with pytest.raises(Refused, match="unknown status 'deleted'"):
        update_team_task(ws, "fixture-team", "2", status="deleted")
    with pytest.raises(NotFound, match="Unknown member 'carol'"):
        update_team_task(ws, "fixture-team", "2", owner="carol")
    with pytest.raises(NotFound, match="task ids are numbers"):
        update_team_task(ws, "fixture-team", "../2", status="pending")
    with pytest.raises(NotFound, match="no task 9 in the task list"):
        update_team_task(ws, "fixture-team", "9", status="pending")
    assert {path.name: path.read_bytes() for path in ws.claude_tasks_dir("fixture-team").iterdir()} == before


HOLDER = textwrap.dedent(
    """
    import os, sys, time, fcntl
    directory, how, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if how == "mkdir":
        os.mkdir(os.path.join(directory, ".lock.lock"))
    else:
        handle = open(os.path.join(directory, ".lock"), "rb")
        fcntl.flock(handle, fcntl.LOCK_EX)
    print("held", flush=True)
    time.sleep(seconds)
    path = os.path.join(directory, "2.json")
    with open(path) as f:
        task = __import__("json").load(f)
    task["description"] = "changed by the other writer"
    with open(path, "w") as f:  # Claude Code rewrites in place, under its lock
        f.write(__import__("json").dumps(task, separators=(",", ":")))
    if how == "mkdir":
        os.rmdir(os.path.join(directory, ".lock.lock"))
    """
)


@pytest.mark.parametrize("how", ["mkdir", "flock"])
def test_a_writer_holding_the_lists_lock_is_waited_for_never_overwritten(compact, how):
    ws = compact
    directory = ws.claude_tasks_dir("fixture-team")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(directory), how, "0.6"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        update_task_file(ws, "fixture-team", "2", {"owner": "worker-a"})
        waited = time.monotonic() - started
    finally:
        holder.wait(timeout=10)
    task = json.loads(task_path(ws, "fixture-team", "2").read_text())
    assert waited >= 0.4  # it waited for the holder ...
    assert (
        task["description"] == "changed by the other writer" and task["owner"] == "worker-a"
    )  # ... and kept its change


def test_a_lock_held_past_the_timeout_is_busy_and_nothing_is_written(compact, monkeypatch):
    ws = compact
    monkeypatch.setattr("teamdeck.formats.claude_code.tasks.LOCK_TIMEOUT_S", 0.2)
    directory = ws.claude_tasks_dir("fixture-team")
    before = task_path(ws, "fixture-team", "2").read_bytes()
    with open(directory / ".lock", "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(Busy, match="tasks/fixture-team is busy"):
            update_task_file(ws, "fixture-team", "2", {"owner": "worker-a"})
    assert task_path(ws, "fixture-team", "2").read_bytes() == before
    assert not (directory / ".lock.lock").exists()  # the mkdir lock taken first was given back


# --- reading ------------------------------------------------------------------------------


def test_bad_files_are_problems_with_their_path_and_the_rest_still_shows(compact):
    ws = compact
    directory = ws.claude_tasks_dir("fixture-team")
    (directory / "4.json").write_text('{"id": "4", "subject": ')
    (directory / "5.json").write_text(json.dumps({"id": "5", "subject": "huge", "description": "x" * 10_000_000}))
    (directory / "notes.json").write_text("{}")
    (directory / "6.json").write_text(json.dumps({"id": "6", "subject": "waits", "blockedBy": ["41"]}))
    (directory / "7.json").write_text(json.dumps({"id": "8", "subject": "wrong id"}))
    (directory / ".highwatermark").write_text("8")
    (directory / "tasks.json").write_text('{"tasks": []}')
    snapshot = build_snapshot(ws)
    listing = snapshot.team_tasks[0]
    assert [task.id for task in listing.visible] == ["1", "2", "6"]
    problems = {problem.path: problem for problem in listing.problems}
    assert set(problems) == {
        "tasks/fixture-team/4.json",
        "tasks/fixture-team/5.json",
        "tasks/fixture-team/7.json",
        "tasks/fixture-team/notes.json",
        "tasks/fixture-team/6.json",
    }
    assert "too big for a task file" in problems["tasks/fixture-team/5.json"].why
    assert (
        problems["tasks/fixture-team/6.json"].where == "$.blockedBy"
        and "41" in problems["tasks/fixture-team/6.json"].why
    )
    assert "task file is named by its numeric id" in problems["tasks/fixture-team/notes.json"].why
    assert set(problems.values()) <= set(snapshot.problems)
    assert snapshot.task(" fixture-team") is None and snapshot.tasks == ()  # a task list is no teamdeck task
    doctor = read_claude_tasks(ws, "fixture-team")
    assert [task.id for task in doctor.visible] == ["1", "2", "6"] and len(doctor.problems) == 4


def test_a_list_whose_name_is_no_team_is_not_shown(compact):
    ws = compact
    solo = ws.tasks_dir / "3b22f6a2-8179-4c1e-9b8a-1f1f1f1f1f1f"
    solo.mkdir()
    (solo / "1.json").write_text(json.dumps({"id": "1", "subject": "solo"}))
    assert [listing.team for listing in build_snapshot(ws).team_tasks] == ["fixture-team"]


def test_stalled_in_progress_tasks_owner_idle_past_the_threshold_or_offline(captured):
    ws = captured
    snapshot = build_snapshot(ws)
    listing = snapshot.team_tasks[0]
    assert [(task.id, task.stalled) for task in listing.visible if task.stalled] == [
        ("2", "owner config-analyst idle for 19d")
    ]
    assert listing.hidden == 4
    data = snapshot_json(snapshot)
    assert data["overview"]["stalled"] == 1 and data["overview"]["teamTasks"] == 4
    assert data["teamTasks"][0]["tasks"][1] == {
        "id": "2",
        "subject": "Analyze team config format",
        "status": "in_progress",
        "owner": "config-analyst",
        "activeForm": "Analyzing team config format",
        "blockedBy": [],
        "blocks": [],
        "stalled": "owner config-analyst idle for 19d",
        "reported": None,
        "file": "tasks/analysis-team/2.json",
    }
    (ws.root / ".teamdeck.yaml").write_text("stalledAfterSeconds: 100000000\n")
    assert build_snapshot(ws).stalled_tasks == ()  # the threshold is the workspace's


def test_a_task_of_an_offline_or_departed_owner_is_stalled(compact):
    ws = compact
    update_team_task(ws, "fixture-team", "2", status="in_progress")
    config = json.loads(ws.team_config("fixture-team").read_text())
    config["members"][2]["isActive"] = False
    ws.team_config("fixture-team").write_text(json.dumps(config))
    assert [task.stalled for task in build_snapshot(ws).stalled_tasks] == ["owner worker-b is offline"]
    config["members"].pop(2)
    ws.team_config("fixture-team").write_text(json.dumps(config))
    assert "not in the team" in build_snapshot(ws).stalled_tasks[0].stalled


def test_refresh_rereads_only_the_changed_task_file(captured):
    ws = captured
    snapshot = build_snapshot(ws)
    state = snapshot.state
    kept = state.task_lists[TEAM].read["1.json"]
    update_team_task(ws, TEAM, "2", status="completed")
    after = refresh(snapshot, [task_path(ws, TEAM, "2")])
    assert after.team_task(f"{TEAM}#2").status == "completed" and after.stalled_tasks == ()
    assert after.state.task_lists[TEAM].read["1.json"] is kept  # not read again
    task_path(ws, TEAM, "9").write_text(json.dumps({"id": "9", "subject": "new", "status": "pending"}, indent=2))
    newer = refresh(after, [task_path(ws, TEAM, "9")])
    assert [task.id for task in newer.team_tasks[0].visible] == ["1", "2", "3", "4", "9"]
    task_path(ws, TEAM, "9").unlink()
    assert [task.id for task in refresh(newer, [task_path(ws, TEAM, "9")]).team_tasks[0].visible] == [
        "1",
        "2",
        "3",
        "4",
    ]


def test_retime_flags_a_task_once_its_owner_has_been_idle_long_enough(captured):
    ws = captured
    (ws.root / ".teamdeck.yaml").write_text("stalledAfterSeconds: 1728000\n")  # 20 days; idle for 19 so far
    now = [FIXED_NOW]
    ws = Workspace.at(ws.root, clock=lambda: now[0])
    snapshot = build_snapshot(ws)
    assert snapshot.stalled_tasks == () and retime(snapshot) is snapshot  # nothing changed: the same snapshot
    now[0] = FIXED_NOW + timedelta(days=2)
    later = retime(snapshot)
    assert [task.id for task in later.stalled_tasks] == ["2"] and later.team_task(f"{TEAM}#1") is not None
