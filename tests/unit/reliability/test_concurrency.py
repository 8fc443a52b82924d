"""Concurrency (docs/reliability.md 3.3) and locks (F10, F11): real processes, short runs.

Writers are separate Python processes (worker.py) released together, so the races are
the kernel's, not the GIL's. Each test checks that the race really happened where that
is not obvious, so it cannot pass by running the writers one after the other.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import socket
import time
from collections import Counter

import pytest

from teamdeck.errors import Busy, Conflict, InvalidFile
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.taskfile import load_task, parse_task_dict, read_events, transact
from teamdeck.store import locks
from teamdeck.store.jsonl import MAX_RECORD_BYTES
from teamdeck.store.locks import lock_path_for, locked

from .procs import expect_line, finish, release, spawn


def _gate_event(ws, gate_id: str):
    return new_event(ws, "gate.blocked", {"gateId": gate_id, "reason": "ours", "agentInstance": "w1", "questions": []})


def test_c3_reads_of_task_yaml_during_rewrites_are_never_torn(ws, tmp_path):
    create_task(ws, "t1", "Read me " + "x" * 4000)  # a task.yaml of some kilobytes
    stop = tmp_path / "stop"
    flipper = spawn("flip-states", ws.root, "t1", stop)
    release([flipper])
    path = ws.task_file("t1")
    torn, revisions = 0, set()
    try:
        for _ in range(5000):
            try:
                revisions.add(parse_task_dict(path.read_bytes(), path)["revision"])
            except InvalidFile:
                torn += 1
    finally:
        stop.touch()
    flips = int(expect_line(flipper, "flips").split()[1])
    finish(flipper)
    assert torn == 0
    assert flips > 0 and len(revisions) > 1  # the file really was rewritten while we read


def test_c4_eight_writers_append_whole_lines_up_to_the_record_cap(tmp_path):
    log = tmp_path / "events.jsonl"
    writers = [spawn("append-events", log, f"w{number}", 200, number) for number in range(8)]
    release(writers)
    for writer in writers:
        finish(writer, timeout=60)
    lines = log.read_bytes().split(b"\n")
    assert lines.pop() == b""  # ends with a newline
    records = [json.loads(line) for line in lines]  # every line parses
    ids = Counter(record["id"] for record in records)
    assert len(records) == 1600
    assert set(ids.values()) == {1}  # every id exactly once
    assert max(len(line) + 1 for line in lines) == MAX_RECORD_BYTES  # sizes reach the cap
    assert min(len(line) for line in lines) >= 99
    for number in range(8):  # each writer's records in its own order
        own = [record["n"] for record in records if record["writer"] == f"w{number}"]
        assert own == list(range(200))


def test_c5_two_processes_read_modify_write_the_same_task(ws):
    create_task(ws, "t1", "Contended")
    writers = [spawn("add-gates", ws.root, "t1", prefix, 25) for prefix in ("a", "b")]
    release(writers)
    for writer in writers:
        expect_line(writer, "done")
        finish(writer)
    task = load_task(ws, "t1")
    assert sorted(gate.id for gate in task.gates) == sorted([f"a{n}" for n in range(25)] + [f"b{n}" for n in range(25)])
    assert task.revision == 51
    on_disk = parse_task_dict(ws.task_file("t1").read_bytes(), ws.task_file("t1"))
    assert len(on_disk["gates"]) == 50  # task.yaml itself, not only the folded log
    assert on_disk["lastEventId"] == read_events(ws, "t1")[-1].id


def test_c6_external_writer_between_our_read_and_replace_is_detected_and_ours_reapplied(ws):
    create_task(ws, "t1", "Original title")
    path = ws.task_file("t1")

    def decide(task):
        # Another tool, ignoring our lock, rewrites task.yaml after we read it.
        path.write_text(path.read_text().replace("Original title", "Renamed by another tool") + "otherTool: true\n")
        return [_gate_event(ws, "g1")]

    change = transact(ws, "t1", decide, action="block on g1")
    on_disk = parse_task_dict(path.read_bytes(), path)
    assert on_disk["title"] == "Renamed by another tool"  # their change kept
    assert on_disk["otherTool"] is True
    assert [gate["id"] for gate in on_disk["gates"]] == ["g1"]  # ours re-applied on the fresh file
    assert change.task.title == "Renamed by another tool" and change.task.gate("g1") is not None


def test_c6_a_writer_that_keeps_interfering_gets_a_conflict_and_nothing_is_lost(ws, monkeypatch):
    from teamdeck.protocol.task import taskfile

    create_task(ws, "t1", "Busy file")
    path = ws.task_file("t1")
    real_check = taskfile._unchanged_on_disk
    rewrites = []

    def interfering_check(target, data):
        rewrites.append(1)  # the other tool rewrites just before every compare-and-swap
        target.write_text(target.read_text() + f"touched{len(rewrites)}: true\n")
        return real_check(target, data)

    monkeypatch.setattr(taskfile, "_unchanged_on_disk", interfering_check)
    with pytest.raises(
        Conflict,
        match=r"^Could not block on g1: task.yaml changed on disk while applying; the event is recorded and will be applied on the next command. Please retry.$",
    ):
        transact(ws, "t1", lambda _task: [_gate_event(ws, "g1")], action="block on g1")
    assert len(rewrites) == 3
    assert b"g1" not in path.read_bytes()  # not written over their file
    monkeypatch.undo()
    assert load_task(ws, "t1").gate("g1") is not None  # recorded, not silently lost
    assert transact(ws, "t1", lambda _task: [], action="reconcile").task.gate("g1") is not None
    assert b"g1" in path.read_bytes()


def test_c12_closing_another_descriptor_does_not_drop_our_lock(tmp_path):
    target = tmp_path / "task.yaml"
    holder = spawn("hold-lock", target, 1)  # locks, then opens and closes a second fd
    expect_line(holder, "held")
    with pytest.raises(Busy):
        with locked(target, timeout=0.2):
            pass  # pragma: no cover - must not get here
    finish(holder)
    with locked(target, timeout=5):
        pass


def test_c12_harness_self_check_lockf_loses_its_lock(tmp_path):
    """The same scenario with fcntl.lockf: the lock vanishes, and the harness sees it."""
    target = tmp_path / "task.yaml"
    holder = spawn("hold-lockf", target)
    expect_line(holder, "held")
    fd = os.open(lock_path_for(target), os.O_RDWR)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # succeeds: the holder's lock is gone
    finally:
        os.close(fd)
    finish(holder)


def test_f10_lock_holder_killed_with_sigkill_releases_the_lock(ws):
    create_task(ws, "t1", "Orphaned lock")
    holder = spawn("hold-lock", ws.task_file("t1"), 0)
    expect_line(holder, "held")
    with pytest.raises(Busy):
        with locked(ws.task_file("t1"), timeout=0.1):
            pass  # pragma: no cover
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait(timeout=10)
    started = time.monotonic()
    change = transact(ws, "t1", lambda _task: [_gate_event(ws, "g1")], action="block on g1")
    assert time.monotonic() - started < locks.LOCK_TIMEOUT_S
    assert change.task.gate("g1") is not None


def test_f11_lock_held_past_the_timeout_names_the_holder_and_writes_nothing(ws, monkeypatch):
    create_task(ws, "t1", "Held")
    task_before = ws.task_file("t1").read_bytes()
    log_before = ws.events_file("t1").read_bytes()
    holder = spawn("hold-lock", ws.task_file("t1"), 0)
    expect_line(holder, "held")
    monkeypatch.setattr(locks, "LOCK_TIMEOUT_S", 0.3)
    try:
        with pytest.raises(Busy) as failure:
            transact(ws, "t1", lambda _task: [_gate_event(ws, "g1")], action="block on g1")
    finally:
        finish(holder)
    pattern = rf"^tasks/t1/task.yaml is busy: locked by pid {holder.pid} on host {re.escape(socket.gethostname())} for \d+ s. Try again.$"
    assert re.match(pattern, str(failure.value)), str(failure.value)
    assert ws.task_file("t1").read_bytes() == task_before
    assert ws.events_file("t1").read_bytes() == log_before
