"""Issue 9 item 1: a gate decision on a team's task reaches the worker it concerns, in
its Claude Code inbox, through the same locked, logged, confirmed writer as ``send``;
a task with no team keeps the old behaviour (human-notes.md only)."""

from __future__ import annotations

import json

from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.coordination.delegation import delegate, report
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.effects.task_retry import retry
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.task.taskfile import load_task, transact
from teamdeck.protocol.team.messaging.injection import inject
from teamdeck.store.loaders import dumps_json


def inbox(ws, member: str) -> list[dict]:
    path = ws.inbox("alpha", member)
    return json.loads(path.read_text()) if path.exists() else []


def logged(ws) -> list[dict]:
    return [json.loads(line) for line in ws.messages_log("alpha").read_text().splitlines()]


def blocked_worker(ws, member: str = "bob") -> str:
    """A delegated task whose worker reported blocked: its gate id."""
    create_task(ws, "t1", "Parser", team="alpha")
    delegate(ws, "t1", member)
    done = report(ws, "t1", member.lower(), status="blocked", summary="need a decision", questions=["LALR or PEG?"])
    return done.task.open_gates[0].id


def test_approving_a_gate_tells_the_blocked_worker_once_from_the_lead(team):
    ws = team
    gate_id = blocked_worker(ws)
    before = len(inbox(ws, "bob"))
    change = decide_gate(ws, "t1", gate_id, "approve", "PEG, keep it small")
    after = inbox(ws, "bob")
    assert len(after) == before + 1
    entry = after[-1]
    assert entry["from"] == "team-lead" and entry["summary"] == f"gate {gate_id} approved" and entry["read"] is False
    for part in (gate_id, "approved", ws.actor, "PEG, keep it small", "tasks/t1/shared/human-notes.md"):
        assert part in entry["text"]
    assert change.said == ("told bob (team alpha) in their inbox",)
    record = [line for line in logged(ws) if line.get("summary") == f"gate {gate_id} approved"]
    assert len(record) == 1 and record[0]["to"] == ["bob"]  # logged like any send


def test_the_decision_is_injected_as_a_teammate_message(team):
    ws = team
    gate_id = blocked_worker(ws)
    inject(ws, "alpha", "bob")  # the assignment, read earlier
    decide_gate(ws, "t1", gate_id, "reject", "not PEG: LALR")
    blocks = [item.block for item in inject(ws, "alpha", "bob")]
    assert len(blocks) == 1
    assert blocks[0].startswith('<teammate-message teammate_id="team-lead"')
    assert f'summary="gate {gate_id} rejected"' in blocks[0] and "not PEG: LALR" in blocks[0]


def test_a_worker_that_joined_without_delegation_is_found_by_its_worker_id(team):
    ws = team
    create_task(ws, "t1", "Parser", team="alpha")
    path = ws.final_output("t1", "alice")
    path.parent.mkdir(parents=True)
    path.write_text(dumps_json({"status": "blocked", "summary": "stuck", "questions": ["which?"]}))
    join_task(ws, "t1")
    gate_id = load_task(ws, "t1").open_gates[0].id
    decide_gate(ws, "t1", gate_id, "approve", "this one")
    assert inbox(ws, "Alice")[-1]["summary"] == f"gate {gate_id} approved"


def test_a_task_with_no_team_tells_nobody(ws):
    create_task(ws, "t1", "Loner")
    path = ws.final_output("t1", "w1")
    path.parent.mkdir(parents=True)
    path.write_text(dumps_json({"status": "blocked", "summary": "stuck", "questions": ["which?"]}))
    join_task(ws, "t1")
    gate_id = load_task(ws, "t1").open_gates[0].id
    change = decide_gate(ws, "t1", gate_id, "approve", "this one")
    assert change.said == () and not ws.teams_dir.exists()
    assert "this one" in ws.human_notes("t1").read_text()


def test_fail_gate_retry_and_give_up_tell_every_worker(team):
    ws = team
    create_task(ws, "t1", "Parser", team="alpha")
    delegate(ws, "t1", "Alice")
    delegate(ws, "t1", "bob", role="verifier")

    def fail_gate(gate_id: str):
        transact(
            ws,
            "t1",
            lambda task: [
                new_event(
                    ws,
                    "gate.blocked",
                    {"gateId": gate_id, "kind": "verification-failed", "agentInstance": None, "reason": "FAIL"},
                ),
                new_event(ws, "task.state_changed", {"from": task.state, "to": "input-required", "reason": "FAIL"}),
            ],
            action="open a FAIL gate",
        )

    fail_gate("g-fail-1")
    retry(ws, "t1", note="try the edge cases")
    for member in ("Alice", "bob"):
        entry = inbox(ws, member)[-1]
        assert entry["summary"] == "gate g-fail-1 approved" and "retry" in entry["text"]
        assert "try the edge cases" in entry["text"]
    fail_gate("g-fail-2")
    decide_gate(ws, "t1", "g-fail-2", "reject", "out of budget")
    assert inbox(ws, "bob")[-1]["summary"] == "gate g-fail-2 rejected" and "give up" in inbox(ws, "bob")[-1]["text"]


def test_a_worker_that_cannot_be_told_leaves_the_decision_recorded(team):
    ws = team
    gate_id = blocked_worker(ws)
    ws.inbox("alpha", "bob").write_text('{"not": "an inbox"}')
    change = decide_gate(ws, "t1", gate_id, "approve", "go")
    assert change.task.gate(gate_id).state == "approved"
    assert any("bob was not sent the message" in notice for notice in change.notices) and change.said == ()
    assert ws.inbox("alpha", "bob").read_text() == '{"not": "an inbox"}'  # never rewritten


def test_a_worker_that_delegated_to_itself_is_not_told_of_its_own_report(team):
    ws = team
    create_task(ws, "t1", "Parser", team="alpha")
    delegate(ws, "t1", "bob", sender="bob")
    before = len(inbox(ws, "bob"))
    done = report(ws, "t1", "bob", status="completed", summary="done")
    assert done.notified == [] and len(inbox(ws, "bob")) == before
