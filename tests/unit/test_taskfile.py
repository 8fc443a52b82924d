"""The task read-modify-write path: creation, events before YAML, reconciliation (F12)."""

from __future__ import annotations

import pytest

from teamdeck.errors import NotFound, ReadOnly, Refused
from teamdeck.model.task import Task
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.lifecycle import transition_event
from teamdeck.protocol.task.replay import replay
from teamdeck.protocol.task.taskfile import load_task, read_events, transact
from teamdeck.store.jsonl import append_record
from teamdeck.store.workspace import Workspace


def test_create_task_writes_yaml_and_created_event(ws):
    change = create_task(ws, "t1", "First task", team="alpha")
    assert change.task.state == "working"
    assert change.task.revision == 1
    events = read_events(ws, "t1")
    assert [event.type for event in events] == ["task.created"]
    assert load_task(ws, "t1").lastEventId == events[0].id
    assert (ws.task_dir("t1") / "agents").is_dir()


def test_create_twice_is_refused_and_changes_nothing(ws):
    create_task(ws, "t1", "First task")
    before = ws.task_file("t1").read_bytes()
    with pytest.raises(Refused, match="already exists"):
        create_task(ws, "t1", "Again")
    assert ws.task_file("t1").read_bytes() == before


def test_unknown_task_is_not_found(ws):
    with pytest.raises(NotFound):
        load_task(ws, "nope")


def test_read_only_refuses_before_writing(ws):
    ro = Workspace(ws.root, clock=ws.clock, read_only=True, read_only_reason="--read-only")
    with pytest.raises(ReadOnly, match="read-only"):
        create_task(ro, "t1", "x")
    assert not (ws.root / "tasks").exists()


def test_f12_event_appended_but_yaml_not_replaced_is_reconciled(ws):
    """F12: a crash after the event append and before task.yaml: the next read folds it in."""
    create_task(ws, "t1", "First task")
    task = load_task(ws, "t1")
    event = transition_event(ws, task, "input-required", reason="crash test")
    append_record(ws.events_file("t1"), event.model_dump(mode="json"))  # ... and "crash" here
    assert load_task(ws, "t1").state == "input-required"
    change = transact(ws, "t1", lambda _task: [], action="reconcile")
    assert change.task.state == "input-required"
    assert b"input-required" in ws.task_file("t1").read_bytes()
    again = transact(ws, "t1", lambda _task: [], action="reconcile")
    assert again.task.revision == change.task.revision  # replay is idempotent


def test_replaying_the_log_reproduces_task_yaml(ws):
    create_task(ws, "t1", "First task")
    transact(ws, "t1", lambda task: [transition_event(ws, task, "verifying")], action="verify")
    rebuilt = Task.model_validate(replay(read_events(ws, "t1"))).model_dump(mode="json")
    on_disk = load_task(ws, "t1").model_dump(mode="json")
    assert rebuilt == on_disk


def test_illegal_transition_names_both_states_and_legal_ones(ws):
    create_task(ws, "t1", "First task")
    task = load_task(ws, "t1")
    with pytest.raises(
        Refused, match="cannot go from working to done; from working it can go to: input-required, verifying"
    ):
        transition_event(ws, task, "done")


def test_unknown_fields_survive_a_rewrite(ws):
    create_task(ws, "t1", "First task")
    path = ws.task_file("t1")
    path.write_text(path.read_text() + "ownerTool: other-orchestrator\n")
    transact(
        ws,
        "t1",
        lambda task: [new_event(ws, "task.state_changed", {"from": "working", "to": "input-required"})],
        action="x",
    )
    assert "ownerTool: other-orchestrator" in path.read_text()


def test_transact_on_a_directory_that_is_not_a_task_leaves_no_lock_file(ws):
    """A Claude Code task list under tasks/<team>/ is not ours: no task.yaml.lock appears there."""
    claude_list = ws.root / "tasks" / "alpha"
    claude_list.mkdir(parents=True)
    (claude_list / "1.json").write_text('{"id": "1", "subject": "x", "status": "pending"}')
    with pytest.raises(NotFound):
        transact(ws, "alpha", lambda _task: [], action="touch alpha")
    assert sorted(path.name for path in claude_list.iterdir()) == ["1.json"]
