"""Faults (docs/reliability.md 3.1): crashes, torn and partial log lines, failing disks.

Crashes are real: the writer runs in a subprocess and kills itself with SIGKILL at a
named crash point (``TEAMDECK_CRASH_AT``). Disk failures go through the fs seam
(:mod:`faults`). A torn tail is the bytes a writer killed inside a big ``write``
leaves: a record prefix with no newline.
"""

from __future__ import annotations

import errno
import logging
import os
import signal
import subprocess

import pytest

from teamdeck.errors import WriteFailed
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.effects.interrupted import complete_pending
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.lifecycle import transition_event
from teamdeck.protocol.task.replay import replay
from teamdeck.protocol.task.taskfile import load_task, parse_task_dict, read_events, transact
from teamdeck.store import fs
from teamdeck.store.fs import CRASH_ENV
from teamdeck.store.jsonl import Tail, append_line, append_record, encode_record, read_records, repair_torn_tail
from teamdeck.store.workspace import Workspace

from .faults import Fault, FaultyFs
from .procs import expect_line, spawn

CRASH_POINTS = ["task.after_tmp_write", "task.after_tmp_fsync", "task.after_replace"]


def _temps(ws: Workspace, task_id: str) -> list[str]:
    return sorted(
        name for name in os.listdir(ws.task_dir(task_id)) if name.startswith(".task.yaml.") and name.endswith(".tmp")
    )


def _run_transition(ws: Workspace, target: str, crash_at: str | None = None) -> subprocess.Popen[str]:
    proc = spawn("transition", ws.root, "t1", target, env={CRASH_ENV: crash_at} if crash_at else None)
    proc.communicate(timeout=30)
    return proc


def _noop(_task):
    return []


# --- F1 -------------------------------------------------------------------------


@pytest.mark.parametrize("crash_at", CRASH_POINTS)
def test_f1_kill_9_writer_of_task_yaml_leaves_old_or_new(ws, crash_at, caplog):
    """F1: SIGKILL at each crash point; task.yaml is whole (old or new), the stray temp
    file is removed and logged by the next transaction, and what was reported done stays."""
    create_task(ws, "t1", "Crash me")
    done = spawn("transition", ws.root, "t1", "input-required")
    assert expect_line(done, "done") == "done"  # reported done by a process that then exits
    assert done.wait(timeout=30) == 0
    old = ws.task_file("t1").read_bytes()

    crashed = _run_transition(ws, "working", crash_at)
    assert crashed.returncode == -signal.SIGKILL

    after = ws.task_file("t1").read_bytes()
    parse_task_dict(after, ws.task_file("t1"))  # parses: never half a file
    on_disk_state = load_task(Workspace.at(ws.root), "t1").state
    if crash_at == "task.after_replace":
        assert after != old and b"state: working" in after
        assert _temps(ws, "t1") == []
    else:
        assert after == old  # the old version, byte for byte
        assert len(_temps(ws, "t1")) == 1  # the killed writer's temp file
    # The event was appended (fsync) before the crash, so the change is not lost:
    assert on_disk_state == "working"
    assert [event.type for event in read_events(ws, "t1")] == [
        "task.created",
        "task.state_changed",
        "task.state_changed",
    ]

    caplog.set_level(logging.WARNING)
    change = transact(ws, "t1", _noop, action="open the task")
    assert _temps(ws, "t1") == []
    if crash_at != "task.after_replace":
        assert any(
            "removed a temp file left by a crashed writer: tasks/t1/.task.yaml." in notice for notice in change.notices
        )
        assert "removed a temp file left by a crashed writer" in caplog.text
    # The action reported done (-> input-required) is on disk, followed by the crashed one.
    states = [event.payload["to"] for event in read_events(ws, "t1") if event.type == "task.state_changed"]
    assert states == ["input-required", "working"]
    assert b"state: working" in ws.task_file("t1").read_bytes()


def test_f1_kill_9_during_cli_task_create_rebuilds_from_the_log(ws, run_cli):
    """F1 through the real CLI: killed after the temp write of a brand-new task.yaml."""
    result = run_cli(
        ws.root, "task", "create", "t2", "--title", "Born in a crash", env={CRASH_ENV: "task.after_tmp_write"}
    )
    assert result.code == -signal.SIGKILL
    assert not ws.task_file("t2").exists()
    assert len(_temps(ws, "t2")) == 1
    assert load_task(ws, "t2").title == "Born in a crash"  # task.created was appended first
    change = transact(ws, "t2", _noop, action="open the task")
    assert _temps(ws, "t2") == []
    assert change.task.title == "Born in a crash"
    assert parse_task_dict(ws.task_file("t2").read_bytes(), ws.task_file("t2"))["title"] == "Born in a crash"


# --- F26 ------------------------------------------------------------------------

STALE_POINTS = ["task.after_tmp_write", "task.after_tmp_fsync", "task.before_replace"]
"""The crash points after the event is appended and before task.yaml is replaced."""


def _stale_after_crash(ws: Workspace, crash_at: str) -> bytes:
    """Task t1 whose writer was killed at ``crash_at`` moving it to input-required: its
    event is in events.jsonl, task.yaml is the old one. Returns task.yaml's bytes."""
    create_task(ws, "t1", "Crash me")
    assert _run_transition(ws, "input-required", crash_at).returncode == -signal.SIGKILL
    stale = ws.task_file("t1").read_bytes()
    assert b"state: input-required" not in stale
    assert [event.type for event in read_events(ws, "t1")][-1] == "task.state_changed"
    return stale


def _replayed(ws: Workspace) -> dict:
    """task.yaml as the full replay of its events gives it."""
    replayed = replay(read_events(ws, "t1"))
    assert replayed is not None
    return replayed


@pytest.mark.parametrize("crash_at", STALE_POINTS)
def test_f26_doctor_repair_rewrites_a_task_yaml_a_crash_left_behind_its_events(ws, crash_at, run_cli):
    """F26: killed between the append and the rewrite, task.yaml disagreed with its
    events until the task's next change; ``doctor --repair`` left it so. Now the
    repair rewrites it as the replay of its events, and says so."""
    _stale_after_crash(ws, crash_at)
    result = run_cli(ws.root, "doctor", "--repair")
    assert "tasks/t1/task.yaml: rewritten with the events of events.jsonl a crash left unapplied" in result.out
    on_disk = parse_task_dict(ws.task_file("t1").read_bytes(), ws.task_file("t1"))
    assert on_disk == _replayed(ws)
    assert on_disk["state"] == "input-required"
    assert _temps(ws, "t1") == []  # the killed writer's temp file went with the rewrite

    again = run_cli(ws.root, "doctor", "--repair")
    assert "task.yaml" not in again.out  # up to date: nothing more to say


def test_f26_any_writing_command_rewrites_it_at_its_start_and_leaves_a_current_one_alone(ws, run_cli):
    """F26: the interrupted-action completion every writing command runs at its start
    (protocol/effects/interrupted.py) brings a stale task.yaml up to date too; a
    task.yaml that has applied every event is not rewritten (same inode)."""
    _stale_after_crash(ws, "task.before_replace")
    create_task(ws, "t2", "Untouched")
    current = ws.task_file("t2").stat().st_ino

    result = run_cli(ws.root, "team", "create", "alpha")
    assert result.code == 0, result.err
    assert "tasks/t1/task.yaml: rewritten" in result.err
    assert parse_task_dict(ws.task_file("t1").read_bytes(), ws.task_file("t1")) == _replayed(ws)
    assert ws.task_file("t2").stat().st_ino == current
    assert complete_pending(ws) == []


# --- F2, F16 --------------------------------------------------------------------


def _torn_log(ws: Workspace) -> tuple[bytes, bytes]:
    """A task whose events.jsonl ends in a torn record; returns (complete part, torn part)."""
    create_task(ws, "t1", "Torn")
    transact(ws, "t1", lambda task: [transition_event(ws, task, "input-required")], action="block")
    log = ws.events_file("t1")
    complete = log.read_bytes()
    big = encode_record(
        new_event(ws, "gate.blocked", {"gateId": "g1", "reason": "x" * 60_000}).model_dump(mode="json"), log
    )
    torn = big[: len(big) * 2 // 3]  # what a writer killed inside its one big write leaves
    with open(log, "ab") as handle:
        handle.write(torn)
    return complete, torn


def test_f2_readers_ignore_bytes_after_the_last_newline(ws):
    complete, torn = _torn_log(ws)
    records, problems = read_records(ws.events_file("t1"))
    assert [record["type"] for record in records] == ["task.created", "task.state_changed"]
    assert problems == []
    assert load_task(ws, "t1").state == "input-required"
    assert ws.events_file("t1").read_bytes() == complete + torn  # reading changed nothing


def test_f2_next_transaction_moves_the_torn_tail_aside_under_the_lock(ws, caplog):
    complete, torn = _torn_log(ws)
    caplog.set_level(logging.WARNING)
    change = transact(ws, "t1", lambda task: [transition_event(ws, task, "working")], action="unblock")
    broken = [name for name in os.listdir(ws.task_dir("t1")) if name.startswith("events.jsonl.broken-")]
    assert broken == ["events.jsonl.broken-20260301T120000Z"]
    assert (ws.task_dir("t1") / broken[0]).read_bytes() == torn
    banner = f"tasks/t1/events.jsonl: incomplete last record ({len(torn):,} bytes) moved to {broken[0]}; all complete records kept"
    assert change.notices == (banner,)
    assert banner in caplog.text
    data = ws.events_file("t1").read_bytes()
    assert data.startswith(complete) and data.endswith(b"\n")  # complete records intact, new one after
    records, problems = read_records(ws.events_file("t1"))
    assert problems == []
    assert [record["type"] for record in records] == ["task.created", "task.state_changed", "task.state_changed"]
    assert load_task(ws, "t1").state == "working"


def test_f2_repair_names_are_unique_and_a_clean_file_is_left_alone(ws):
    _complete, torn = _torn_log(ws)
    log = ws.events_file("t1")
    assert repair_torn_tail(log, "same") is not None
    assert repair_torn_tail(log, "same") is None  # ends cleanly now: nothing to do
    with open(log, "ab") as handle:
        handle.write(b'{"id":"half')
    assert "moved to events.jsonl.broken-same-2" in repair_torn_tail(log, "same")
    assert (log.parent / "events.jsonl.broken-same").read_bytes() == torn


@pytest.mark.parametrize("op", ["write", "fsync", "open"])
def test_f16_enospc_during_the_tail_repair_leaves_the_file_untouched(ws, op):
    complete, torn = _torn_log(ws)
    task_before = ws.task_file("t1").read_bytes()
    faulty = FaultyFs(Fault(op, errno.ENOSPC, name="events.jsonl.broken-*"))
    with fs.installed(faulty), pytest.raises(WriteFailed) as failure:
        transact(ws, "t1", lambda task: [transition_event(ws, task, "working")], action="unblock")
    assert faulty.fired
    assert str(failure.value).startswith(
        "events.jsonl: could not save the incomplete last record to events.jsonl.broken-"
    )
    assert "No space left on device" in str(failure.value)
    assert str(failure.value).endswith("the file was left untouched")
    assert ws.events_file("t1").read_bytes() == complete + torn
    assert ws.task_file("t1").read_bytes() == task_before
    assert not [name for name in os.listdir(ws.task_dir("t1")) if ".broken-" in name]
    assert load_task(ws, "t1").state == "input-required"  # readers still skip the torn tail
    change = transact(ws, "t1", lambda task: [transition_event(ws, task, "working")], action="unblock")
    assert change.task.state == "working" and len(change.notices) == 1  # retry works once space is back


# --- F3 -------------------------------------------------------------------------


def test_f3_partial_last_line_is_not_parsed_until_its_newline_arrives(ws):
    log = ws.root / "events.jsonl"
    first = encode_record({"id": "a", "n": 1}, log)
    second = encode_record({"id": "b", "n": 2, "text": "x" * 5000}, log)
    log.write_bytes(first + second[:10])
    tail = Tail(log)
    assert tail.read_new() == [{"id": "a", "n": 1}]
    with open(log, "ab") as handle:
        handle.write(second[10:-1])  # grows, still no newline
    assert tail.read_new() == []
    assert tail.problems == []  # not an error
    with open(log, "ab") as handle:
        handle.write(b"\n")
    assert tail.read_new() == [{"id": "b", "n": 2, "text": "x" * 5000}]
    assert tail.read_new() == []


def test_f3_a_partial_line_that_stops_growing_is_reported_after_5_s(tmp_path):
    log = tmp_path / "events.jsonl"
    log.write_bytes(b'{"id":"a"}\n{"id":"b","te')
    tail = Tail(log)
    assert len(tail.read_new()) == 1
    assert tail.grown_at is not None
    assert tail.stalled_partial(now=tail.grown_at + 4.9) is None  # still young: normal
    assert (
        tail.stalled_partial(now=tail.grown_at + 6)
        == "events.jsonl: incomplete last line at byte 11 has not grown for 6 s"
    )
    with open(log, "ab") as handle:
        handle.write(b'xt":1}\n')
    assert tail.read_new() == [{"id": "b", "text": 1}]
    assert tail.stalled_partial(now=tail.grown_at + 60) is None  # completed: nothing to report


# --- F6 -------------------------------------------------------------------------


def test_f6_short_write_on_append_is_truncated_back_and_reported(ws):
    create_task(ws, "t1", "Short")
    log_before = ws.events_file("t1").read_bytes()
    task_before = ws.task_file("t1").read_bytes()
    faulty = FaultyFs(Fault("write", short=True, name="events.jsonl"))
    with (
        fs.installed(faulty),
        pytest.raises(
            WriteFailed,
            match=r"short write to events.jsonl \(\d+ of \d+ bytes\); the partial line was removed, nothing was written",
        ),
    ):
        transact(ws, "t1", lambda task: [transition_event(ws, task, "input-required")], action="block")
    assert faulty.fired == 1
    assert ws.events_file("t1").read_bytes() == log_before  # no half line left
    assert ws.task_file("t1").read_bytes() == task_before
    assert (
        transact(ws, "t1", lambda task: [transition_event(ws, task, "input-required")], action="block").task.state
        == "input-required"
    )


def test_f6_enospc_on_append_changes_nothing(ws):
    create_task(ws, "t1", "Full disk")
    log_before = ws.events_file("t1").read_bytes()
    task_before = ws.task_file("t1").read_bytes()
    with (
        fs.installed(FaultyFs(Fault("write", errno.ENOSPC, name="events.jsonl"))),
        pytest.raises(WriteFailed, match="No space left on device writing events.jsonl; nothing was written"),
    ):
        transact(ws, "t1", lambda task: [transition_event(ws, task, "input-required")], action="block")
    assert ws.events_file("t1").read_bytes() == log_before
    assert ws.task_file("t1").read_bytes() == task_before


def test_f6_short_write_through_append_line_directly(tmp_path):
    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"id":"a"}\n')
    with (
        fs.installed(FaultyFs(Fault("write", short=True))),
        pytest.raises(WriteFailed, match="partial line was removed"),
    ):
        append_line(log, b'{"id":"b","pad":"' + b"x" * 1000 + b'"}\n')
    assert log.read_bytes() == b'{"id":"a"}\n'


# --- F14 ------------------------------------------------------------------------


def _lines(*ids: str) -> bytes:
    return b"".join(f'{{"id":"{record_id}"}}\n'.encode() for record_id in ids)


def test_f14_replaced_file_is_reread_without_duplicates(tmp_path):
    log = tmp_path / "events.jsonl"
    log.write_bytes(_lines("a", "b"))
    tail = Tail(log)
    assert [record["id"] for record in tail.read_new()] == ["a", "b"]
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(_lines("a", "b", "c"))
    os.replace(replacement, log)  # new inode, larger than before
    assert [record["id"] for record in tail.read_new()] == ["c"]
    assert tail.reset is True
    assert tail.read_new() == [] and tail.reset is False


def test_f14_truncated_file_is_reread_from_the_start(tmp_path):
    log = tmp_path / "events.jsonl"
    log.write_bytes(_lines("a", "b", "c"))
    tail = Tail(log)
    assert len(tail.read_new()) == 3
    with open(log, "r+b") as handle:
        handle.truncate(0)
    assert tail.read_new() == [] and tail.reset is True
    log.write_bytes(_lines("b", "d"))
    assert [record["id"] for record in tail.read_new()] == ["d"]


def test_f14_rotated_file_is_followed_by_name(tmp_path):
    log = tmp_path / "events.jsonl"
    log.write_bytes(_lines("a"))
    tail = Tail(log)
    assert len(tail.read_new()) == 1
    os.rename(log, tmp_path / "events.jsonl.1")
    log.write_bytes(_lines("a", "e"))
    assert [record["id"] for record in tail.read_new()] == ["e"]
    assert tail.reset is True


# --- C9 -------------------------------------------------------------------------


def test_c9_the_same_event_line_appended_twice_counts_once(ws):
    create_task(ws, "t1", "Retry")
    event = new_event(ws, "gate.blocked", {"gateId": "g1", "reason": "retry after a timeout"})
    record = event.model_dump(mode="json")
    append_record(ws.events_file("t1"), record)
    append_record(ws.events_file("t1"), record)  # the retry
    raw_lines = ws.events_file("t1").read_bytes().count(b"\n")
    assert raw_lines == 3
    assert [e.id for e in read_events(ws, "t1")].count(event.id) == 1
    tail = Tail(ws.events_file("t1"))
    assert [r["id"] for r in tail.read_new()].count(event.id) == 1
    task = load_task(ws, "t1")
    assert [gate.id for gate in task.gates] == ["g1"]
    assert task.revision == 2  # applied once


# --- F5, F8, F9 -----------------------------------------------------------------


@pytest.mark.parametrize(("op", "code"), [("write", errno.ENOSPC), ("fsync", errno.EIO), ("open", errno.ENOSPC)])
def test_f5_failure_writing_the_temp_file_leaves_task_yaml_and_no_temp(ws, op, code):
    create_task(ws, "t1", "Temp trouble")
    task_before = ws.task_file("t1").read_bytes()
    faulty = FaultyFs(Fault(op, code, name=".task.yaml.*.tmp"))
    with fs.installed(faulty), pytest.raises(WriteFailed) as failure:
        transact(ws, "t1", lambda task: [transition_event(ws, task, "input-required")], action="block the task")
    assert faulty.fired == 1
    message = str(failure.value)
    assert message.startswith("Could not block the task: could not write task.yaml: ")
    assert os.strerror(code) in message
    assert message.endswith("the change is recorded in events.jsonl and will be applied on the next command")
    assert ws.task_file("t1").read_bytes() == task_before
    assert _temps(ws, "t1") == []
    assert load_task(ws, "t1").state == "input-required"  # the appended event is reconciled (F12)
    transact(ws, "t1", _noop, action="open the task")
    assert b"state: input-required" in ws.task_file("t1").read_bytes()


def test_f8_fsync_eio_on_the_event_append_fails_the_action_as_not_durable(ws):
    create_task(ws, "t1", "Fsyncgate")
    task_before = ws.task_file("t1").read_bytes()
    faulty = FaultyFs(Fault("fsync", errno.EIO, name="events.jsonl"))
    with (
        fs.installed(faulty),
        pytest.raises(
            WriteFailed, match="Input/output error making events.jsonl durable; the record may not survive a crash"
        ),
    ):
        transact(ws, "t1", lambda task: [transition_event(ws, task, "input-required")], action="block the task")
    assert faulty.fired == 1  # no retry that could turn into a false success
    assert ws.task_file("t1").read_bytes() == task_before  # task.yaml not replaced after a failed fsync


def test_f9_directory_fsync_einval_warns_once_per_mount_and_continues(ws, monkeypatch, caplog):
    from teamdeck.store import atomic

    monkeypatch.setattr(atomic, "_warned_mounts", set())
    create_task(ws, "t1", "FUSE")
    caplog.set_level(logging.WARNING)
    faulty = FaultyFs(Fault("fsync_dir", errno.EINVAL))
    with fs.installed(faulty):
        transact(ws, "t1", lambda task: [transition_event(ws, task, "input-required")], action="block")
        transact(ws, "t1", lambda task: [transition_event(ws, task, "working")], action="unblock")
    assert faulty.fired == 2
    warnings = [
        record.getMessage() for record in caplog.records if "directory fsync unsupported" in record.getMessage()
    ]
    assert warnings == [f"directory fsync unsupported on {ws.task_dir('t1')}; renames may not survive power loss"]
    assert load_task(ws, "t1").state == "working"


def test_f2_team_log_append_moves_a_torn_tail_aside_first(ws):
    """F2 for teams/<team>/messages.jsonl: the next record is not glued onto a fragment."""
    from teamdeck.protocol.team.teamlog import log, new_record, read_log
    from teamdeck.store.jsonl import read_records

    path = ws.messages_log("alpha")
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"id":"01J00000000000000000000000","ts":"2026-03-01T12:00:00.000Z","type":"message"')
    log(ws, "alpha", new_record(ws, "message", from_="team-lead", to=["w1"], summary="hi"))
    records, problems = read_records(path)
    assert problems == []
    assert [record["type"] for record in records] == ["message"]
    assert list(path.parent.glob("messages.jsonl.broken-*"))
    assert read_log(ws, "alpha")[1] == []
