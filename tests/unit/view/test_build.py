"""The read model: build a snapshot from disk, refresh it from changed paths."""

from __future__ import annotations

import json

import pytest
from support import small_worlds as worlds

from teamdeck.protocol.coordination.delegation import delegate
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown, respond_shutdown
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, check_outputs, load_older, refresh, unchecked_outputs


def _public(snapshot):
    """The snapshot's visible content (without its time and private state)."""
    return (snapshot.teams, snapshot.tasks, snapshot.decisions, snapshot.events, snapshot.problems)


def test_empty_workspace(ws: Workspace) -> None:
    snapshot = build_snapshot(ws)
    assert snapshot.tasks == () and snapshot.teams == () and snapshot.decisions == () and snapshot.problems == ()
    assert snapshot.taken_at == ws.clock()


def test_tasks_workers_and_gates(ws: Workspace) -> None:
    worlds.world(ws)
    snapshot = build_snapshot(ws)
    (task,) = snapshot.tasks
    assert (task.id, task.state, task.team) == ("t1", "input-required", "alpha")
    assert task.workers_by_status() == {"blocked": 1, "completed": 1, "invalid": 1}
    assert task.summary_path == "tasks/t1/shared/reports/joined-summary.md"
    (gate,) = snapshot.decisions
    assert gate.kind == "task-gate" and gate.task_id == "t1" and gate.agent == "w1"
    assert gate.questions == ("Which grammar?", "May I add a dependency?")
    assert gate.notes_path == "tasks/t1/shared/human-notes.md"
    assert [problem.path for problem in snapshot.problems] == ["tasks/t1"]
    assert "agents/w3/artifacts/final.json" in snapshot.problems[0].why


def test_roster_unread_and_inbox(ws: Workspace) -> None:
    worlds.world(ws)
    snapshot = build_snapshot(ws)
    (team,) = snapshot.teams
    assert [member.name for member in team.members] == ["team-lead", "alice", "bob"]
    alice = snapshot.member("alpha/alice")
    assert alice is not None and alice.unread == 1 and alice.status == "working" and alice.model == "sonnet"
    (message,) = alice.inbox
    assert (message.kind, message.sender, message.summary, message.read) == ("plain", "team-lead", "start lexer", False)
    assert snapshot.member("alpha/team-lead").lead


def test_idle_notifications_fold_into_status_and_one_row(ws: Workspace) -> None:
    worlds.team(ws)
    for _ in range(5):
        worlds.idle(ws, "alpha", "alice")
    snapshot = build_snapshot(ws)
    alice = snapshot.member("alpha/alice")
    assert alice.status == "idle" and alice.since == "2026-03-01T12:00:00.000Z"
    lead = snapshot.member("alpha/team-lead")
    (row,) = lead.inbox
    assert row.kind == "idle" and row.count == 5 and row.sender == "alice"


def test_plan_request_is_a_gate_and_the_member_awaits(ws: Workspace) -> None:
    worlds.team(ws)
    worlds.plan_request(ws, "alpha", "bob")
    snapshot = build_snapshot(ws)
    (gate,) = snapshot.decisions
    assert gate.kind == "plan-approval" and gate.member == "bob" and gate.request_id == "plan-1"
    assert gate.body == "1. parse\n2. test" and gate.reason == "plans/p.md"
    assert snapshot.member("alpha/bob").status == "awaiting"
    assert snapshot.member("alpha/bob").pending_plan == "plan-1"


def test_shutdown_handshake_progresses(ws: Workspace) -> None:
    worlds.team(ws)
    sent = request_shutdown(ws, "alpha", "alice", reason="done for today")
    snapshot = build_snapshot(ws)
    alice = snapshot.member("alpha/alice")
    assert alice.status == "shutdown-requested" and alice.pending_shutdown == sent.request_id
    respond_shutdown(ws, "alpha", sent.request_id, approve=True, sender="alice")  # alice leaves the roster
    snapshot = refresh(snapshot, [ws.inbox("alpha", "team-lead"), ws.messages_log("alpha"), ws.team_config("alpha")])
    alice = snapshot.member("alpha/alice")
    assert alice.status == "offline" and not alice.active


def test_an_inbox_change_uses_the_roster_read_at_its_own_change(ws: Workspace) -> None:
    """config.json is read when it changes (the watcher reports it), not again for
    every inbox change; one that could not be read is tried again with the next."""
    worlds.team(ws)
    snapshot = build_snapshot(ws)
    config = ws.team_config("alpha")
    good = config.read_bytes()
    config.write_text("{ not json")
    snapshot = refresh(snapshot, [config])
    assert any(problem.path == "teams/alpha/config.json" for problem in snapshot.problems)
    config.write_bytes(good)
    send_message(ws, "alpha", "bob", "hello", summary="hi", sender="alice")
    snapshot = refresh(snapshot, [ws.inbox("alpha", "bob")])  # the config's own change not reported yet
    assert not any(problem.path == "teams/alpha/config.json" for problem in snapshot.problems)
    assert snapshot.member("alpha/bob").unread == 1


def test_shutdown_approved_but_still_active_is_marked(ws: Workspace) -> None:
    from teamdeck.model.team import ShutdownApproved
    from teamdeck.protocol.team.messaging.sending import send_structured

    worlds.team(ws)
    sent = request_shutdown(ws, "alpha", "alice")
    # Claude Code's known failure: the approval arrives, isActive stays true.
    send_structured(
        ws, "alpha", "team-lead", ShutdownApproved(requestId=sent.request_id, from_="alice"), sender="alice"
    )
    snapshot = build_snapshot(ws)
    alice = snapshot.member("alpha/alice")
    assert alice.status == "shutdown-approved" and alice.active
    assert any(marker.startswith("not offline") for marker in alice.markers)


def test_shutdown_rejection_is_shown(ws: Workspace) -> None:
    worlds.team(ws)
    sent = request_shutdown(ws, "alpha", "bob")
    respond_shutdown(ws, "alpha", sent.request_id, approve=False, sender="bob", reason="still testing")
    bob = build_snapshot(ws).member("alpha/bob")
    assert bob.status == "working" and "still testing" in bob.detail


def test_refresh_sees_a_new_blocked_worker_and_a_decision(ws: Workspace) -> None:
    worlds.team(ws)
    create_task(ws, "t2", "Write docs", team="alpha")
    snapshot = build_snapshot(ws)
    assert snapshot.decisions == ()
    write_final_output(ws, "t2", "w9", {"status": "blocked", "summary": "stuck", "questions": ["Which format?"]})
    from teamdeck.protocol.task.join import join_task

    join_task(ws, "t2")
    snapshot = refresh(snapshot, [ws.task_file("t2"), ws.events_file("t2")])
    (gate,) = snapshot.decisions
    assert gate.task_id == "t2" and snapshot.task("t2").state == "input-required"
    events_before = len(snapshot.events)
    decide_gate(ws, "t2", gate.gate_id, "approve", note="markdown")
    snapshot = refresh(snapshot, [ws.events_file("t2"), ws.task_file("t2")])
    assert snapshot.decisions == () and snapshot.task("t2").gates[0].state == "approved"
    assert [row.kind for row in snapshot.events[events_before:]] == ["gate.approved", "task.state_changed"]


def test_refresh_is_idempotent(ws: Workspace) -> None:
    worlds.world(ws)
    snapshot = build_snapshot(ws)
    everything = [path for path in ws.root.rglob("*")]
    again = refresh(snapshot, everything)
    assert _public(again) == _public(snapshot)
    assert _public(refresh(again, everything)) == _public(snapshot)


def test_new_task_and_new_team_appear(ws: Workspace) -> None:
    snapshot = build_snapshot(ws)
    create_task(ws, "t5", "Later")
    worlds.team(ws, "beta")
    snapshot = refresh(snapshot, [ws.task_file("t5"), ws.team_config("beta")])
    assert [task.id for task in snapshot.tasks] == ["t5"]
    assert [team.name for team in snapshot.teams] == ["beta"]


def test_removed_task_disappears(ws: Workspace) -> None:
    import shutil

    create_task(ws, "t5", "Later")
    snapshot = build_snapshot(ws)
    shutil.rmtree(ws.task_dir("t5"))
    snapshot = refresh(snapshot, [ws.task_file("t5")])
    assert snapshot.tasks == () and snapshot.events == ()


def test_b1_broken_task_yaml_keeps_the_last_good_row(ws: Workspace) -> None:
    worlds.blocked_task(ws, team=None)
    snapshot = build_snapshot(ws)
    ws.task_file("t1").write_text("id: t1\ntitle: !!python/object/apply:os.system [echo]\n")
    snapshot = refresh(snapshot, [ws.task_file("t1")])
    (task,) = snapshot.tasks
    assert task.state == "input-required" and task.problem is not None
    assert "!!python/object/apply" in task.problem.why
    assert any(problem.path == "tasks/t1/task.yaml" for problem in snapshot.problems)


def test_b14_unreadable_inbox_marks_that_member_only(ws: Workspace) -> None:
    worlds.world(ws)
    ws.inbox("alpha", "alice").write_text('{"not": "an array"}')
    snapshot = build_snapshot(ws)
    alice, bob = snapshot.member("alpha/alice"), snapshot.member("alpha/bob")
    assert alice.inbox_problem is not None and "expected a JSON array" in alice.inbox_problem.why
    assert bob.inbox_problem is None
    assert any(problem.path == "teams/alpha/inboxes/alice.json" for problem in snapshot.problems)


def test_events_are_merged_in_time_order_and_older_ones_load_on_demand(ws: Workspace) -> None:
    create_task(ws, "t1", "One")
    log = ws.events_file("t1")
    with open(log, "a") as handle:
        for n in range(3000):
            handle.write(
                json.dumps(
                    {
                        "id": f"01J{n:023d}",
                        "ts": f"2026-03-01T11:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                        "type": "note.added",
                        "actor": "agent",
                        "payload": {"n": n},
                    }
                )
                + "\n"
            )
    snapshot = build_snapshot(ws, tail_budget=100)
    assert len(snapshot.events) == 100 and not snapshot.events_complete
    older = load_older(snapshot, 5000)
    assert len(older.events) == 3001 and older.events_complete
    keys = [(row.ts, row.id) for row in older.events]
    assert keys == sorted(keys)


def test_settings_read_only_and_auto_join(ws: Workspace) -> None:
    (ws.root / ".teamdeck.yaml").write_text("readOnly: true\nautoJoin: false\n")
    snapshot = build_snapshot(ws)
    assert snapshot.read_only and "readOnly" in snapshot.read_only_reason and not snapshot.auto_join
    (ws.root / ".teamdeck.yaml").write_text("readOnly: false\n")
    snapshot = refresh(snapshot, [ws.root / ".teamdeck.yaml"])
    assert not snapshot.read_only and snapshot.auto_join


@pytest.mark.parametrize("path", ["elsewhere/x.json", "tasks/../../etc/passwd"])
def test_paths_outside_are_ignored(ws: Workspace, path: str) -> None:
    snapshot = build_snapshot(ws)
    assert _public(refresh(snapshot, [ws.root / path])) == _public(snapshot)


def test_worker_outputs_are_read_again_only_when_agents_changed(ws: Workspace) -> None:
    """A decision rewrites task.yaml, not final.json: the refresh of task.yaml keeps the
    worker outputs it read (no parse and schema check of every final.json per key
    press); a change under agents/ reads them again."""
    worlds.team(ws)
    create_task(ws, "t2", "Write docs", team="alpha")
    final = write_final_output(ws, "t2", "w9", {"status": "blocked", "summary": "stuck", "questions": ["Which?"]})
    snapshot = build_snapshot(ws)
    assert [(w.id, w.status) for w in snapshot.task("t2").workers] == [("w9", "blocked")]
    write_final_output(ws, "t2", "w9", {"status": "completed", "summary": "done"})
    snapshot = refresh(snapshot, [ws.task_file("t2")])
    assert [(w.id, w.status) for w in snapshot.task("t2").workers] == [("w9", "blocked")]
    snapshot = refresh(snapshot, [final])
    assert [(w.id, w.status, w.summary) for w in snapshot.task("t2").workers] == [("w9", "completed", "done")]


def test_outputs_left_unchecked_are_said_to_be_unchecked_until_checked(ws: Workspace) -> None:
    """The TUI draws its first frame before any final.json is read: the task says its
    outputs are not checked (the workers task.yaml names are ``checking``, no output
    problem is claimed yet); check_outputs then gives exactly what a full build gives,
    and has nothing left to do after that."""
    worlds.world(ws)
    worker = delegate(ws, "t1", "bob").worker.id
    first = build_snapshot(ws, check_outputs=False)
    (task,) = first.tasks
    assert not task.outputs_checked
    assert [(view.id, view.status, view.member) for view in task.workers] == [(worker, "checking", "bob")]
    assert first.problems == ()
    checked = check_outputs(first)
    assert _public(checked) == _public(build_snapshot(ws))
    assert check_outputs(checked) is checked


def test_outputs_are_checked_a_few_tasks_at_a_time_when_asked(ws: Workspace) -> None:
    """The TUI checks the outputs of 100 tasks per refresh (at 1,000 tasks, all at once
    took seconds in which no change was shown): each call checks the next tasks, and
    the last one ends where a check of all of them does."""
    worlds.world(ws)
    for task_id in ("t2", "t3"):
        create_task(ws, task_id, "Another task", team="alpha")
        write_final_output(ws, task_id, "w1", {"status": "completed", "summary": "done"})
    first = build_snapshot(ws, check_outputs=False)
    assert unchecked_outputs(first) == 3
    one = check_outputs(first, 1)
    assert unchecked_outputs(one) == 2
    assert [task.outputs_checked for task in one.tasks] == [True, False, False]
    two = check_outputs(one, 2)
    assert unchecked_outputs(two) == 0
    assert _public(two) == _public(check_outputs(first)) == _public(build_snapshot(ws))
