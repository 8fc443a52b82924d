"""Appends to a log that has a hard link out of the workspace (docs/reliability.md S24).

``O_NOFOLLOW`` and the walk from the root (S10, S16) stop symbolic links, but a hard
link is the file itself under a second name: an agent can make ``messages.jsonl`` or
``events.jsonl`` one name of a file outside the workspace, and an append in place then
writes there. Inbox rewrites and YAML replaces already break such a link (they write a
new file and rename it); before the fix an append wrote into the outside file. Now an
append to a file with other links copies it, adds the record and renames the copy over
it: every record is kept in the workspace's log, the outside file is unchanged.
"""

from __future__ import annotations

import os
from pathlib import Path

from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.gates import list_gates
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teamlog import read_log
from teamdeck.store.jsonl import append_record, read_records
from teamdeck.store.workspace import Workspace


def link_out(ws: Workspace, relative: str, outside: Path) -> Path:
    """Give the workspace file ``relative`` a second name outside the workspace."""
    outside.mkdir(exist_ok=True)
    target = outside / relative.replace("/", "__")
    os.link(ws.root / relative, target)
    return target


def test_s24_a_send_never_writes_into_a_hard_link_out_and_keeps_every_record(world, tmp_path):
    log = world.root / "teams/alpha/messages.jsonl"
    outside = link_out(world, "teams/alpha/messages.jsonl", tmp_path / "outside")
    before_outside = outside.read_bytes()
    before, _ = read_log(world, "alpha")

    send_message(world, "alpha", "bob", "second", summary="second")
    send_message(world, "alpha", "bob", "third", summary="third")

    assert outside.read_bytes() == before_outside
    after, problems = read_log(world, "alpha")
    assert not problems
    assert [record.id for record in after[: len(before)]] == [record.id for record in before]
    assert [record.summary for record in after[len(before) :]] == ["second", "third"]
    assert log.stat().st_nlink == 1


def test_s24_a_decision_never_writes_into_a_hard_link_out_of_events_jsonl(world, tmp_path):
    events = world.root / "tasks/t1/events.jsonl"
    outside = link_out(world, "tasks/t1/events.jsonl", tmp_path / "outside")
    before_outside = outside.read_bytes()
    before, _ = read_records(events)

    gate = list_gates(world, "t1").gates[0].gate
    decide_gate(world, "t1", gate.id, "approve")

    assert outside.read_bytes() == before_outside
    after, problems = read_records(events)
    assert not problems
    assert after[: len(before)] == before
    assert len(after) > len(before)
    assert events.stat().st_nlink == 1


def test_s24_the_replaced_log_keeps_its_permissions_and_a_plain_log_is_appended_in_place(ws, tmp_path):
    log = ws.root / "log.jsonl"
    append_record(log, {"id": "a"})
    log.chmod(0o640)
    inode = log.stat().st_ino
    append_record(log, {"id": "b"})
    assert log.stat().st_ino == inode  # no other link: in place, as always

    os.link(log, tmp_path / "elsewhere.jsonl")
    append_record(log, {"id": "c"})

    assert log.stat().st_ino != inode
    assert log.stat().st_mode & 0o777 == 0o640
    assert [record["id"] for record in read_records(log)[0]] == ["a", "b", "c"]
    assert [record["id"] for record in read_records(tmp_path / "elsewhere.jsonl")[0]] == ["a", "b"]
    assert sorted(os.listdir(ws.root)) == ["log.jsonl"]  # no temp file left
