"""Delegation and report_to_parent (seed 002): inbox messages, workers, roles, final.json."""

from __future__ import annotations

import json

import pytest

from teamdeck.errors import NotFound, Refused
from teamdeck.model.team import decode_text
from teamdeck.protocol.coordination.delegation import delegate, member_roles, notify_workers, report
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.lifecycle import transition
from teamdeck.protocol.task.taskfile import load_task, read_events


def inbox(ws, member: str) -> list[dict]:
    return json.loads(ws.inbox("alpha", member).read_text())


def test_delegate_records_the_worker_then_writes_a_task_assignment(team):
    ws = team
    create_task(
        ws,
        "t1",
        "Parser",
        team="alpha",
        extra={"spec": {"objective": "Parse it", "scope": "", "definitionOfDone": "tests", "verification": "pytest"}},
    )
    done = delegate(ws, "t1", "alice", role="implementor", note="start with the lexer")
    assert done.confirmed and done.task.state == "working"
    worker = load_task(ws, "t1").workers[0]
    assert (worker.id, worker.member, worker.role, worker.assignedBy) == ("alice", "Alice", "implementor", "team-lead")
    entry = inbox(ws, "Alice")[-1]
    message = decode_text(entry["text"])
    assert entry["from"] == "team-lead" and message.KIND == "task_assignment"
    assert (message.taskId, message.subject, message.assignedBy) == ("t1", "Parser", "team-lead")
    assert "## Objective\nParse it" in message.description and "start with the lexer" in message.description
    assert "teamdeck report t1 alice" in message.description
    assert "report on task t1 with the report_to_parent tool of teamdeck's MCP server" in message.description
    again = delegate(ws, "t1", "alice", role="verifier")  # idempotent record, message sent again
    assert [worker.role for worker in again.task.workers] == ["verifier"] and len(inbox(ws, "Alice")) == 2


def test_delegating_an_approved_task_starts_it_unless_a_dependency_is_not_done(team):
    ws = team
    create_task(ws, "base", "Base", team="alpha", state="approved")
    create_task(ws, "top", "Top", team="alpha", state="approved", extra={"dependsOn": ["base"]})
    assert delegate(ws, "base", "bob").task.state == "working"
    assert [event.type for event in read_events(ws, "base")][-2:] == ["task.delegated", "task.state_changed"]
    with pytest.raises(Refused, match="top cannot start: it depends on tasks that are not done: base \\(working\\)"):
        delegate(ws, "top", "bob")
    assert load_task(ws, "top").workers == [] and not ws.inbox("alpha", "bob").read_text().count("top")


def test_delegation_is_refused_without_a_team_a_member_or_an_approval(team):
    ws = team
    create_task(ws, "loner", "No team")
    with pytest.raises(Refused, match="it has no team"):
        delegate(ws, "loner", "bob")
    create_task(ws, "t1", "T", team="alpha", state="planned")
    with pytest.raises(Refused, match="it is planned, not approved yet"):
        delegate(ws, "t1", "bob")
    transition(ws, "t1", "approved")
    with pytest.raises(NotFound, match="Unknown recipient 'carol' in team 'alpha'"):
        delegate(ws, "t1", "carol")
    with pytest.raises(Refused, match="Unknown role 'boss'"):
        delegate(ws, "t1", "bob", role="boss")
    assert load_task(ws, "t1").state == "approved"


def test_report_writes_a_valid_final_json_joins_and_tells_the_delegator(team):
    ws = team
    create_task(ws, "t1", "Parser", team="alpha")
    delegate(ws, "t1", "bob")
    done = report(
        ws,
        "t1",
        "bob",
        status="blocked",
        summary="need a decision",
        questions=["LALR or PEG?"],
        next_actions=["pick one"],
        changed_files=["src/p.py"],
    )
    written = json.loads(ws.final_output("t1", "bob").read_text())
    assert written == {
        "status": "blocked",
        "summary": "need a decision",
        "questions": ["LALR or PEG?"],
        "nextActions": ["pick one"],
        "changedFiles": ["src/p.py"],
        "finishedAt": "2026-03-01T12:00:00.000Z",
    }
    assert (
        done.task.state == "input-required" and done.task.open_gates[0].agentInstance == "bob"
    )  # the join opened a gate
    assert [event.type for event in done.events][:1] == ["worker.reported"]
    told = inbox(ws, "team-lead")[-1]
    assert done.notified == ["team-lead"] and told["from"] == "bob" and "Question: LALR or PEG?" in told["text"]


def test_an_invalid_report_writes_nothing(team):
    ws = team
    create_task(ws, "t1", "Parser", team="alpha")
    with pytest.raises(Refused, match=r"Could not report: .*\$.summary"):
        report(ws, "t1", "bob", status="completed", summary="")
    assert not ws.final_output("t1", "bob").exists()
    transition(ws, "t1", "canceled")
    with pytest.raises(Refused, match="it is canceled; nothing was written"):
        report(ws, "t1", "bob", status="completed", summary="late")


def test_roles_per_member_for_the_roster(team):
    ws = team
    create_task(ws, "t1", "A", team="alpha")
    create_task(ws, "t2", "B", team="alpha")
    delegate(ws, "t1", "alice")
    delegate(ws, "t2", "alice", role="verifier")
    delegate(ws, "t2", "bob", role="coordinator")
    assert member_roles(ws, "alpha") == {"Alice": ["implementor", "verifier"], "bob": ["coordinator"]}


def test_notify_workers_reports_who_could_not_be_told(team):
    ws = team
    create_task(ws, "t1", "A", team="alpha")
    delegate(ws, "t1", "bob")
    told, notices = notify_workers(ws, load_task(ws, "t1"), "please fix", summary="fix")
    assert told == ["bob"] and notices == [] and inbox(ws, "bob")[-1]["text"] == "please fix"
