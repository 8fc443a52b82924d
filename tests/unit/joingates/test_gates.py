"""Gate decisions: approve / reject, refusals (C7), disk faults (F4), effects registry."""

from __future__ import annotations

import errno

import pytest
from reliability.faults import Fault, FaultyFs

from teamdeck.errors import Conflict, InvalidFile, NotFound, Refused, WriteFailed
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.common.intents import pending
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.effects.gate_kinds import GATE_RULES, GateRule
from teamdeck.protocol.task.gates import list_gates
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.task.lifecycle import transition_event
from teamdeck.protocol.task.taskfile import load_task, read_events, transact
from teamdeck.store import fs

from .kit import blocked, file_bytes, new_task, write_output


@pytest.fixture
def two_gates(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", blocked("stuck", "Q1"))
    write_output(ws, "t1", "w2", blocked("also stuck", "Q2"))
    join_task(ws, "t1")
    return ws


def test_approve_records_the_decision_event_and_notes(two_gates):
    ws = two_gates
    change = decide_gate(ws, "t1", "g-w1-1", "approve", note="use postgres")
    (event,) = change.events  # g-w2-1 still waits: no state change
    assert event.type == "gate.approved"
    assert event.payload == {"gateId": "g-w1-1", "agentInstance": "w1", "by": "human:tester", "note": "use postgres"}
    task = load_task(ws, "t1")
    gate = task.gate("g-w1-1")
    assert (gate.state, gate.decidedBy, gate.decidedAt, gate.note) == (
        "approved",
        "human:tester",
        event.ts,
        "use postgres",
    )
    assert task.state == "input-required"
    notes = ws.human_notes("t1").read_text()
    section = notes[notes.index("<!-- teamdeck:gate g-w1-1 -->") : notes.index("<!-- teamdeck:gate g-w2-1 -->")]
    assert "<!-- teamdeck:decision g-w1-1 -->" in section and "approved" in section and "use postgres" in section


def test_the_last_decision_returns_the_task_to_working(two_gates):
    ws = two_gates
    decide_gate(ws, "t1", "g-w1-1", "approve")
    change = decide_gate(ws, "t1", "g-w2-1", "reject", note="out of scope")
    assert [event.type for event in change.events] == ["gate.rejected", "task.state_changed"]
    assert change.events[1].payload["to"] == "working"
    task = load_task(ws, "t1")
    assert task.state == "working" and task.gate("g-w2-1").note == "out of scope"
    assert "<!-- teamdeck:decision g-w2-1 -->" in ws.human_notes("t1").read_text()


def test_reject_requires_a_note_and_writes_nothing(two_gates):
    ws = two_gates
    before = file_bytes(ws.root)
    for note in (None, "", "   "):
        with pytest.raises(Refused, match="a note is required to reject"):
            decide_gate(ws, "t1", "g-w1-1", "reject", note=note)
    assert file_bytes(ws.root) == before


def test_unknown_task_or_gate_is_not_found_and_writes_nothing(two_gates):
    ws = two_gates
    before = file_bytes(ws.root)
    with pytest.raises(NotFound, match="Could not approve gate g-w1-1: No task 'nope'"):
        decide_gate(ws, "nope", "g-w1-1", "approve")
    with pytest.raises(NotFound, match=r"task t1 has no gate 'g9' \(its gates: g-w1-1, g-w2-1\)"):
        decide_gate(ws, "t1", "g9", "approve")
    assert file_bytes(ws.root) == before


def test_f17_a_decision_refused_under_the_lock_leaves_no_intent(two_gates):
    """The intent is recorded under the task's lock, once the task is read and the gate
    is open: an unreadable task.yaml or a gate decided already leaves none behind (a
    crash recovery would otherwise try to finish a decision that never was)."""
    ws = two_gates
    decide_gate(ws, "t1", "g-w1-1", "approve")
    with pytest.raises(Conflict):
        decide_gate(ws, "t1", "g-w1-1", "approve")
    assert pending(ws) == ([], [])
    ws.task_file("t1").write_text("state: [unclosed\n")
    with pytest.raises(InvalidFile, match="task.yaml"):
        decide_gate(ws, "t1", "g-w2-1", "approve")
    assert pending(ws) == ([], [])
    assert read_events(ws, "t1")[-1].payload["gateId"] == "g-w1-1"  # nothing appended


def test_c7_double_approve_is_refused_naming_who_and_when(two_gates):
    ws = two_gates
    decide_gate(ws, "t1", "g-w1-1", "approve")
    before = file_bytes(ws.root)
    with pytest.raises(
        Conflict,
        match=r"gate g-w1-1 already approved by you \(human:tester\) at 2026-03-01 12:00:00 UTC; nothing was changed",
    ):
        decide_gate(ws, "t1", "g-w1-1", "approve")
    with pytest.raises(Conflict, match="already approved by"):
        decide_gate(ws, "t1", "g-w1-1", "reject", note="too late")
    assert file_bytes(ws.root) == before
    assert [event.type for event in read_events(ws, "t1")].count("gate.approved") == 1


def test_f4_enospc_on_the_event_append_of_an_approval_changes_nothing_and_retry_works(two_gates):
    ws = two_gates
    before = file_bytes(ws.root)
    with fs.installed(FaultyFs(Fault("write", errno.ENOSPC, name="events.jsonl"))) as faulty:
        with pytest.raises(WriteFailed) as caught:
            decide_gate(ws, "t1", "g-w1-1", "approve")
    assert faulty.fired == 1
    message = str(caught.value)
    assert message.startswith("Could not approve gate g-w1-1: ")
    assert "No space left on device" in message and "events.jsonl" in message and "nothing was written" in message
    assert file_bytes(ws.root) == before  # task.yaml bytes unchanged, gate still blocked
    assert load_task(ws, "t1").gate("g-w1-1").state == "blocked"
    decide_gate(ws, "t1", "g-w1-1", "approve")  # space is back
    assert load_task(ws, "t1").gate("g-w1-1").state == "approved"


def test_decision_effects_are_looked_up_by_gate_kind(ws, monkeypatch):
    new_task(ws)
    calls = []

    def effect(ws_, task, gate, decision):
        calls.append((task.gate(gate.id).state, gate.kind, decision))
        return [transition_event(ws_, task, "failed", reason="custom effect")]

    monkeypatch.setitem(GATE_RULES, "plan-approval", GateRule(effect))
    transact(
        ws,
        "t1",
        lambda task: [
            new_event(ws, "gate.blocked", {"gateId": "p1", "kind": "plan-approval", "reason": "plan"}),
            transition_event(ws, task, "input-required"),
        ],
        action="block",
    )
    change = decide_gate(ws, "t1", "p1", "reject", note="bad plan")
    assert calls == [("rejected", "plan-approval", "reject")]
    assert [event.type for event in change.events] == ["gate.rejected", "task.state_changed"]
    assert load_task(ws, "t1").state == "failed"


def test_list_gates_of_one_task_and_of_all_tasks_with_problems(two_gates):
    ws = two_gates
    new_task(ws, "t2")
    ws.task_dir("t3").mkdir(parents=True)
    ws.task_file("t3").write_text("id: [broken\n")
    assert [entry.gate.id for entry in list_gates(ws, "t1").gates] == ["g-w1-1", "g-w2-1"]
    listing = list_gates(ws)
    assert [(entry.task_id, entry.gate.id) for entry in listing.gates] == [("t1", "g-w1-1"), ("t1", "g-w2-1")]
    assert len(listing.problems) == 1 and listing.problems[0].startswith("tasks/t3/task.yaml line")
    with pytest.raises(NotFound):
        list_gates(ws, "t9")


def test_a_claude_code_task_list_is_not_a_task_and_is_left_untouched(ws):
    folder = ws.tasks_dir / "alpha"
    folder.mkdir(parents=True)
    (folder / "1.json").write_text('{"id": "1", "subject": "x", "status": "pending"}')
    (folder / ".lock").touch()
    before = sorted(path.name for path in folder.iterdir())
    with pytest.raises(NotFound):
        join_task(ws, "alpha")
    with pytest.raises(NotFound):
        decide_gate(ws, "alpha", "g1", "approve")
    assert sorted(path.name for path in folder.iterdir()) == before
