"""What a protocol call wrote, recorded at the store's one filesystem seam: the files it
replaced or appended to, never its temp files or lock directories; kept even when the
call fails after writing. The TUI refreshes exactly these."""

from __future__ import annotations

import pytest
from support import small_worlds as worlds

from teamdeck.errors import NotFound
from teamdeck.protocol.common.written import recorded, stamps
from teamdeck.protocol.coordination.delegation import delegate, report
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.store.workspace import Workspace


def test_a_gate_decision_records_its_task_file_and_log_and_nothing_transient(ws: Workspace) -> None:
    worlds.world(ws)
    done = recorded(lambda: decide_gate(ws, "t1", "g-w1-1", "approve", "fine"))
    assert done.result.task.gates[0].state == "approved"
    assert {ws.task_file("t1"), ws.events_file("t1")} <= done.written
    assert all(path.exists() for path in done.written), done.written  # no temp file, no lock directory
    assert not any(path.suffix == ".tmp" or path.name.endswith(".lock") for path in done.written)


def test_a_message_records_the_inbox_it_went_to(ws: Workspace) -> None:
    worlds.world(ws)
    done = recorded(lambda: send_message(ws, "alpha", "alice", "hello", summary="hi"))
    assert ws.inbox("alpha", "alice") in done.written
    assert ws.inbox("alpha", "bob") not in done.written


def test_a_document_replaced_whole_is_told_while_the_call_still_runs(team: Workspace) -> None:
    """task.yaml is told the moment it holds the decision, before the message to the
    worker is written (the TUI shows the decision then); an appended log is not told
    (its line may not be written yet when the file is opened)."""
    ws = team
    create_task(ws, "t1", "Parser", team="alpha")
    delegate(ws, "t1", "bob")
    gate = report(ws, "t1", "bob", status="blocked", summary="stuck", questions=["LALR or PEG?"]).task.open_gates[0]
    inbox = ws.inbox("alpha", "bob")
    told: list[tuple[object, bool, bytes]] = []

    def on_replaced(path):
        told.append((path, "approved" in ws.task_file("t1").read_text(encoding="utf-8"), inbox.read_bytes()))

    before = inbox.read_bytes()
    done = recorded(lambda: decide_gate(ws, "t1", gate.id, "approve", "PEG"), on_replaced=on_replaced)
    assert told[0][:2] == (ws.task_file("t1"), True)
    assert told[0][2] == before and inbox.read_bytes() != before  # bob is told, but after task.yaml
    assert ws.events_file("t1") not in [path for path, _, _ in told]
    assert {path for path, _, _ in told} <= done.written


def test_a_refused_call_records_nothing_and_the_caller_still_gets_the_set(ws: Workspace) -> None:
    worlds.world(ws)
    written: set = set()
    with pytest.raises(NotFound):
        recorded(lambda: decide_gate(ws, "t1", "no-such-gate", "approve", None), written)
    assert written == set()


def test_stamps_change_when_the_file_changes(ws: Workspace) -> None:
    worlds.world(ws)
    path = ws.task_file("t1")
    before = stamps([path])[path]
    path.write_bytes(path.read_bytes() + b"\n")
    assert stamps([path])[path] != before and stamps([ws.root / "absent"]) == {ws.root / "absent": None}
