"""Stalls of Gitea work: an issue ``working`` its assignee does not act
on, and a discussion an agent does not comment on, get nudge 1, nudge 2 after the
backoff, then a ``member-stalled`` decision, like a task delegation (protocol/forge/stalls.py).

The deliveries are the recorded fixtures (tests/fixtures/gitea/), applied as the webhook
front applies them; time moves by the workspace's clock, so nothing sleeps.
docs/reliability.md: C7/C13 (a supervisor run twice, or two at once, or again after a
restart, sends nothing twice), F18 (a delivery's effect once).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from support.decision_world import MovableClock
from support.forge_world import delivery, inbox, make_team, signed

from teamdeck.decisions.registry import answer_decision, find_decision
from teamdeck.errors import Refused
from teamdeck.protocol.autowork.step import supervise
from teamdeck.protocol.effects.owed import stalls_now
from teamdeck.protocol.forge.deliveries import receive
from teamdeck.protocol.forge.issues import load_issue
from teamdeck.protocol.forge.outbox import read_outbox
from teamdeck.protocol.task.taskfile import load_task, read_events
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot

MINUTE = 60.0
SETTINGS = "autowork:\n  stallAfterSeconds: 600\n  nudges: 2\n  backoff: 2\n"
"""Nudge 1 after 10 min idle, nudge 2 20 min later, the decision 40 min after that."""
HOLDER = "stall-acme__quant-101"


def _world(root: Path, *deliveries: str) -> tuple[Workspace, MovableClock]:
    clock = MovableClock(datetime.now(UTC))  # the files' own times stay in the past
    root.mkdir()
    ws = Workspace.at(root, clock=clock, actor="human:tester")
    make_team(ws)
    (root / ".teamdeck.yaml").write_text(SETTINGS)
    _receive(ws, *deliveries)
    return ws, clock


def _comment(ws: Workspace, issue: int, login: str, text: str, comment_id: int) -> None:
    """A comment by ``login`` on ``issue``, delivered (a fixture comment, retargeted)."""
    payload = json.loads(delivery("issue-comment-created-100-guanyu")[1])
    payload["issue"]["number"] = issue
    payload["comment"].update(id=comment_id, body=text)
    payload["comment"]["user"]["login"] = payload["sender"]["login"] = login
    if issue == 101:
        issue_101 = json.loads(delivery("issues-opened-sub-101")[1])["issue"]
        payload["issue"] = issue_101
    body = json.dumps(payload).encode()
    assert receive(ws, signed(body, "issue_comment", f"c-{comment_id}"), body).outcome == "applied"


def _receive(ws: Workspace, *names: str) -> None:
    for name in names:
        headers, body = delivery(name)
        assert receive(ws, headers, body).outcome == "applied", name


def _kinds(ws: Workspace) -> list[str]:
    return [step.kind for step in supervise(ws, isolation="thread").steps]


def _reminders(ws: Workspace, member: str) -> list[str]:
    return [entry["text"] for entry in inbox(ws, member) if entry.get("summary", "").startswith("Reminder")]


def _stalled_issue(tmp_path: Path) -> tuple[Workspace, MovableClock]:
    """#101 assigned to zhangfei-dev, who never comments: nudge 1, nudge 2, the decision."""
    ws, clock = _world(tmp_path / "ws", "issues-opened-sub-101")
    assert load_issue(ws, "acme__quant/101").status == "working"
    quiet = supervise(ws, isolation="thread")
    assert quiet.steps == [] and quiet.next_in_s == pytest.approx(10 * MINUTE, abs=2)
    clock.advance(11 * MINUTE)
    assert _kinds(ws) == ["nudge"]
    assert _kinds(ws) == []  # nothing twice
    [first] = _reminders(ws, "zhangfei-dev")
    assert "acme/quant#101, assigned to you, waits for your work" in first and "Action Report" in first
    clock.advance(19 * MINUTE)
    assert _kinds(ws) == []  # the backoff: nudge 2 comes 20 min after nudge 1
    clock.advance(2 * MINUTE)
    assert _kinds(ws) == ["nudge"]
    assert len(_reminders(ws, "zhangfei-dev")) == 2
    clock.advance(39 * MINUTE)
    assert _kinds(ws) == []
    clock.advance(2 * MINUTE)
    assert _kinds(ws) == ["stall-decision"]
    assert _kinds(ws) == []
    return ws, clock


def test_an_assigned_issue_nobody_works_on_is_nudged_twice_then_asked_about(tmp_path: Path) -> None:
    ws, clock = _stalled_issue(tmp_path)
    decision = find_decision(build_snapshot(ws), f"task:{HOLDER}:stall-zhangfei-dev-1")
    assert decision.kind == "task-gate" and decision.subkind == "member-stalled"
    assert decision.reason.startswith("zhangfei-dev has not answered acme/quant#101 for 1 h 13 min, 2 nudges")
    assert (
        "reassigned to them, on Gitea too (idle now: pangtong-fujunshi, guanyu-risk, simayi-review)"
        in (decision.questions[0])
    )
    restarted = Workspace.at(ws.root, clock=clock, actor="human:tester")  # a new process, same files (C7)
    assert _kinds(restarted) == []
    [stall] = stalls_now(restarted)
    assert (stall.kind, stall.subject, stall.member, stall.gate_id) == (
        "issue",
        "acme/quant#101",
        "zhangfei-dev",
        "stall-zhangfei-dev-1",
    )
    member = next(m for t in build_snapshot(ws).teams for m in t.members if m.name == "zhangfei-dev")
    assert any(marker.startswith("stalled: zhangfei-dev has not answered acme/quant#101") for marker in member.markers)


def test_reassigning_a_stalled_issue_gives_it_to_the_member_here_and_on_gitea(tmp_path: Path) -> None:
    ws, clock = _stalled_issue(tmp_path)
    decision = find_decision(build_snapshot(ws), f"task:{HOLDER}:stall-zhangfei-dev-1")
    _answer, answered = answer_decision(ws, decision, "reassign", "guanyu-risk")
    assert "acme/quant#101 reassigned to quant/guanyu-risk" in answered.summary
    issue = load_issue(ws, "acme__quant/101")
    assert issue.assignees == ["guanyu-risk"] and issue.status == "working" and issue.work is not None
    assert [entry["summary"] for entry in inbox(ws, "guanyu-risk")] == [
        "work on acme/quant#101: [quant][sub][parent #100] 策略编码"
    ]
    [queued] = read_outbox(ws)
    assert queued.assignees == ("guanyu-risk",) and "zhangfei-dev has not answered acme/quant#101 for" in queued.comment
    assert "@" not in queued.comment  # a mention would send both agents the comment too
    assert _kinds(ws) == []  # zhangfei owes nothing now; guanyu's wait starts at its assignment
    # Gitea's own "assigned" delivery for the change arrives later: the brief is not sent twice (F18)
    payload = json.loads(delivery("issues-opened-sub-101")[1])
    payload["action"] = "assigned"
    payload["issue"]["assignees"] = [{**payload["issue"]["assignees"][0], "login": "guanyu-risk"}]
    body = json.dumps(payload).encode()
    assert receive(ws, signed(body, "issues", "reassigned"), body).outcome == "applied"
    assert len(inbox(ws, "guanyu-risk")) == 1
    clock.advance(11 * MINUTE)
    assert _kinds(ws) == ["nudge"] and len(_reminders(ws, "guanyu-risk")) == 1


def test_giving_up_on_a_stalled_issue_stops_the_nudges_and_nudging_again_restarts_the_wait(tmp_path: Path) -> None:
    ws, clock = _stalled_issue(tmp_path)
    decision = find_decision(build_snapshot(ws), f"task:{HOLDER}:stall-zhangfei-dev-1")
    answer_decision(ws, decision, "approve", None)  # nudge again
    assert len(_reminders(ws, "zhangfei-dev")) == 3
    assert load_task(ws, HOLDER).state == "working"  # the following task neither fails nor changes hands
    clock.advance(19 * MINUTE)
    assert _kinds(ws) == []  # the person's nudge is nudge 1 of a new round: nudge 2 comes 20 min after it
    clock.advance(2 * MINUTE)
    assert _kinds(ws) == ["nudge"]
    clock.advance(41 * MINUTE)
    assert _kinds(ws) == ["stall-decision"]
    second = find_decision(build_snapshot(ws), f"task:{HOLDER}:stall-zhangfei-dev-2")
    answer_decision(ws, second, "reject", "zhangfei is away this week")
    clock.advance(10 * 3600)
    assert _kinds(ws) == [] and stalls_now(ws) == []
    assert load_issue(ws, "acme__quant/101").assignees == ["zhangfei-dev"]  # the issue is left as it is


def test_the_assignee_s_comment_is_activity_and_makes_an_open_decision_moot(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path / "ws", "issues-opened-sub-101")
    clock.advance(8 * MINUTE)
    _comment(ws, 101, "zhangfei-dev", "Working on it: the backtest harness first.", 9001)
    clock.advance(8 * MINUTE)
    assert _kinds(ws) == []  # 8 min since the comment: the wait counts from it
    clock.advance(3 * MINUTE)
    assert _kinds(ws) == ["nudge"]
    clock.advance(21 * MINUTE)
    assert _kinds(ws) == ["nudge"]
    clock.advance(41 * MINUTE)
    assert _kinds(ws) == ["stall-decision"]
    _comment(ws, 101, "guanyu-risk", "@zhangfei-dev any news?", 9002)  # someone else's comment is no activity
    assert [gate.state for gate in load_task(ws, HOLDER).open_gates] == ["blocked"]
    _comment(ws, 101, "zhangfei-dev", "## Action Report\n- PR: #104", 9003)
    assert load_issue(ws, "acme__quant/101").status == "review"
    assert _kinds(ws) == ["stall-decision"]  # closed: answered
    assert load_task(ws, HOLDER).open_gates == [] and stalls_now(ws) == []


def test_a_discussion_without_an_agent_s_comment_is_nudged_then_asked_about_and_never_reassigned(
    tmp_path: Path,
) -> None:
    ws, clock = _world(tmp_path / "ws", "issues-opened-parent-100", "issue-comment-created-100-guanyu")
    holder = "stall-acme__quant-100"
    clock.advance(11 * MINUTE)
    supervision = supervise(ws, isolation="thread")
    assert [(step.kind, step.summary) for step in supervision.steps] == [
        ("nudge", "nudge 1 sent to simayi-review"),
        ("nudge", "nudge 1 sent to zhangfei-dev"),
    ]  # guanyu-risk commented; the opener is not asked
    assert _kinds(ws) == []  # nothing twice
    assert _kinds(Workspace.at(ws.root, clock=clock, actor="human:tester")) == []  # nor after a restart
    [reminder] = _reminders(ws, "zhangfei-dev")
    assert "the discussion on acme/quant#100 waits for your comment" in reminder
    assert not _reminders(ws, "guanyu-risk")
    _comment(ws, 100, "simayi-review", "Nothing to add from review.", 9100)
    clock.advance(21 * MINUTE)
    assert _kinds(ws) == ["nudge"]
    clock.advance(41 * MINUTE)
    assert _kinds(ws) == ["stall-decision"]
    assert _kinds(Workspace.at(ws.root, clock=clock, actor="human:tester")) == []
    decision = find_decision(build_snapshot(ws), f"task:{holder}:stall-zhangfei-dev-1")
    assert "has not commented on the discussion acme/quant#100" in decision.reason
    assert "a discussion is everyone's" in decision.questions[0]
    before = len(read_events(ws, holder))
    with pytest.raises(Refused, match="it is a discussion every agent was asked to join"):
        answer_decision(ws, decision, "reassign", "guanyu-risk")
    assert len(read_events(ws, holder)) == before  # nothing written
    answer_decision(ws, decision, "reject", "not needed")
    clock.advance(10 * 3600)
    assert _kinds(ws) == [] and stalls_now(ws) == []


def test_c7_c13_two_supervisors_at_once_make_one_following_task_one_nudge_and_one_decision(tmp_path: Path) -> None:
    """The runner's step and a `teamdeck supervise` may run together on a stalled issue."""
    from concurrent.futures import ThreadPoolExecutor

    ws, clock = _world(tmp_path / "ws", "issues-opened-sub-101")
    clock.advance(11 * MINUTE)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: supervise(ws, isolation="thread"), range(4)))
    assert [problem for result in results for problem in result.problems] == []
    assert sum(event.type == "member.nudged" for event in read_events(ws, HOLDER)) == 1
    assert len(_reminders(ws, "zhangfei-dev")) == 1
    clock.advance(21 * MINUTE)
    assert _kinds(ws) == ["nudge"]
    clock.advance(41 * MINUTE)
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda _: supervise(ws, isolation="thread"), range(4)))
    assert [gate.id for gate in load_task(ws, HOLDER).open_gates] == ["stall-zhangfei-dev-1"]


def test_the_task_following_a_closed_issue_is_retired_and_work_after_a_reopen_gets_a_new_one(tmp_path: Path) -> None:
    ws, clock = _world(tmp_path / "ws", "issues-opened-sub-101")
    clock.advance(11 * MINUTE)
    assert _kinds(ws) == ["nudge"]
    _receive(ws, "issues-closed-sub-101-by-creator")
    assert _kinds(ws) == ["retire"]
    retired = load_task(ws, HOLDER)
    assert retired.state == "canceled" and stalls_now(ws) == []
    assert _kinds(ws) == []
    reopened = json.loads(delivery("issues-closed-sub-101-by-creator")[1])
    reopened["action"], reopened["issue"]["state"], reopened["issue"]["closed_at"] = "reopened", "open", None
    body = json.dumps(reopened).encode()
    assert receive(ws, signed(body, "issues", "reopened-101"), body).outcome == "applied"
    _receive(ws, "pull-request-opened-104", "status-failure-104")  # its PR's check fails: a ci_failure to fix
    issue = load_issue(ws, "acme__quant/101")
    assert issue.status == "working" and issue.work is not None and issue.work.kind == "ci_failure"
    clock.advance(11 * MINUTE)
    assert _kinds(ws) == ["nudge"]
    follower = load_task(ws, f"{HOLDER}-2")
    assert follower.state == "working" and [worker.member for worker in follower.workers] == ["zhangfei-dev"]
