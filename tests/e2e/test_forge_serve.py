"""``teamdeck forge serve`` over real HTTP on loopback: the Gitea story of
tests/fixtures/gitea/ yields exactly seed 001's effects, a bad signature writes
nothing, a redelivery does nothing twice."""

from __future__ import annotations

import json

import pytest
from support.forge_world import STORY, delivery, inbox, make_team, post, serving, signed, tree_bytes

from teamdeck.clock import iso
from teamdeck.model.team import InboxMessage
from teamdeck.protocol.forge.deliveries import read_deliveries
from teamdeck.protocol.forge.issues import issue_events, load_issue
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.view.readers.issues import read_issue_tree
from teamdeck.view.refresh.build import build_snapshot

MEMBERS = ("team-lead", "pangtong-fujunshi", "zhangfei-dev", "guanyu-risk", "simayi-review")
ROUND_TASK = "round-acme__quant-100-1"

EXPECTED: dict[str, list[tuple[str, str]]] = {
    "issues-opened-parent-100": [
        ("guanyu-risk", "discuss acme/quant#100: Dual moving-average strategy"),
        ("simayi-review", "discuss acme/quant#100: Dual moving-average strategy"),
        ("zhangfei-dev", "discuss acme/quant#100: Dual moving-average strategy"),
    ],
    "issue-comment-created-100-guanyu": [("pangtong-fujunshi", "guanyu-risk mentioned you on acme/quant#100")],
    "issues-opened-sub-101": [("zhangfei-dev", "work on acme/quant#101: [quant][sub][parent #100] 策略编码")],
    "issues-assigned-sub-101-at-create": [],
    "issues-opened-sub-102": [],
    "issues-assigned-sub-102": [],
    "pull-request-opened-104": [("simayi-review", "review PR #104 of acme/quant (4149ba53a2f3)")],
    "pull-request-review-rejected-104": [("zhangfei-dev", "changes requested on PR #104 for acme/quant#101")],
    "pull-request-review-approved-104": [("zhangfei-dev", "PR #104 approved for acme/quant#101")],
    "pull-request-closed-merged-104": [],
    "issues-closed-sub-101-by-creator": [("guanyu-risk", "work on acme/quant#102: [quant][sub][parent #100] 风控规则")],
    "issues-closed-sub-102-by-coordinator": [
        ("guanyu-risk", "acme/quant#102 closed by pangtong-fujunshi"),
        ("pangtong-fujunshi", "round 1 review of acme/quant#100"),
    ],
}
"""Per delivery, in story order: the (recipient, summary) of every inbox message it adds."""


def _all_inboxes(ws) -> dict[str, list[dict]]:
    return {member: inbox(ws, member) for member in MEMBERS}


def _new(before: dict[str, list[dict]], after: dict[str, list[dict]]) -> list[tuple[str, str]]:
    added = []
    for member in sorted(after):
        added += [(member, entry["summary"]) for entry in after[member][len(before[member]) :]]
    return added


@pytest.fixture
def team_ws(ws):
    make_team(ws)
    return ws


def test_the_story_over_http_has_exactly_the_effects_of_seed_001(team_ws):
    ws = team_ws
    with serving(ws) as url:
        for name in STORY:
            before = _all_inboxes(ws)
            headers, body = delivery(name)
            response = post(url, headers, body)
            assert response.status_code == 200, (name, response.text)
            assert response.json()["outcome"] == "applied"
            assert _new(before, _all_inboxes(ws)) == EXPECTED[name], name
            round_exists = ws.task_file(ROUND_TASK).exists()
            assert round_exists == (name == STORY[-1]), (
                f"the round review opens only once #101 and #102 are closed ({name})"
            )

    # Claude Code's inbox format, from the team lead, unread, stamped with the clock.
    for member, entries in _all_inboxes(ws).items():
        for entry in entries:
            assert list(entry) == ["from", "text", "summary", "timestamp", "read"], member
            assert InboxMessage.model_validate(entry).from_ == "team-lead"
            assert entry["read"] is False and entry["timestamp"] == iso(ws.clock())

    zhangfei = inbox(ws, "zhangfei-dev")
    assert "your role is developer" in zhangfei[0]["text"] and "[quant][sub][parent #100]" in zhangfei[0]["text"]
    assert "git checkout -b feat/101-" in zhangfei[1]["text"] and "Closes #101" in zhangfei[1]["text"]
    assert "未来函数" in zhangfei[2]["text"] and "attempt 2" in zhangfei[2]["text"]
    guanyu = inbox(ws, "guanyu-risk")
    assert "every issue it depends on is closed now" in guanyu[1]["text"]
    assert "### #101" in guanyu[1]["text"], "the Depends: issue is injected as prior output"
    assert "pangtong-fujunshi" in guanyu[2]["text"] and "2026-11-23T16:30:00+08:00" in guanyu[2]["text"]
    pangtong = inbox(ws, "pangtong-fujunshi")
    assert "请确认风控阈值" in pangtong[0]["text"]
    assert f"teamdeck gate approve {ROUND_TASK} round-review" in pangtong[1]["text"]
    assert "#101" in pangtong[1]["text"] and "#102" in pangtong[1]["text"]

    parent, first, second = (load_issue(ws, f"acme__quant/{n}") for n in (100, 101, 102))
    assert (parent.status, parent.state, parent.rounds, parent.roundTask, parent.reviewedSubs) == (
        "pending",
        "open",
        1,
        ROUND_TASK,
        [101, 102],
    )
    assert sorted(parent.notified) == [
        "comment:1203",
        "discussion:guanyu-risk",
        "discussion:simayi-review",
        "discussion:zhangfei-dev",
        "round:1",
    ]
    assert parent.commenters == ["guanyu-risk"]
    tree, problems = read_issue_tree(ws)
    assert problems == () and [(row.number, row.depth, row.shown_status) for row in tree] == [
        (100, 0, "round review"),
        (101, 1, "done"),
        (102, 1, "closed"),
    ]
    assert (tree[0].commented, tree[0].silent) == (("guanyu-risk",), ("simayi-review", "zhangfei-dev"))
    assert (first.status, first.state, first.parent, first.review, first.retries) == (
        "done",
        "closed",
        100,
        "approved",
        1,
    )
    assert first.pull is not None and (first.pull.number, first.pull.head, first.pull.state) == (
        104,
        "feat/101-dual-ma",
        "merged",
    )
    assert (second.status, second.depends, second.assignees, second.closedBy) == (
        "closed",
        [101],
        ["guanyu-risk"],
        "pangtong-fujunshi",
    )
    assert ws.forge_issue_file("acme__quant/101").is_file() and len(issue_events(ws, "acme__quant/101")) >= 8

    task = load_task(ws, ROUND_TASK)
    gate = task.gate("round-review")
    assert task.state == "verified" and gate is not None and gate.state == "blocked" and gate.kind == "round-review"
    assert len(gate.questions) == 3 and gate.agentInstance == "pangtong-fujunshi"
    assert [g.key for g in build_snapshot(ws).decisions] == [f"task:{ROUND_TASK}:round-review"]

    records = read_deliveries(ws)
    assert [record["outcome"] for record in records] == ["applied"] * len(STORY)
    assert [record["delivery"] for record in records] == [delivery(name)[0]["X-Gitea-Delivery"] for name in STORY]


def test_a_wrong_signature_is_401_and_the_workspace_stays_byte_identical(team_ws):
    ws = team_ws
    headers, body = delivery("issues-opened-parent-100")
    before = tree_bytes(ws.root)
    with serving(ws) as url:
        for signature in ("0" * 64, "", "not-hex", signed(body, "issues", "x", secret="another")["X-Gitea-Signature"]):
            response = post(
                url,
                {**headers, "X-Gitea-Signature": signature, "X-Gogs-Signature": signature, "X-Hub-Signature-256": ""},
                body,
            )
            assert response.status_code == 401, signature
            assert response.json()["outcome"] == "unauthorized"
        tampered = body.replace(b"Dual", b"Evil")
        assert post(url, headers, tampered).status_code == 401
    assert tree_bytes(ws.root) == before


def test_each_delivery_posted_twice_has_no_second_effect(team_ws, tmp_path):
    ws = team_ws
    with serving(ws) as url:
        for name in STORY:
            headers, body = delivery(name)
            assert post(url, headers, body).json()["outcome"] == "applied"
            issues_before = tree_bytes(ws.forge_dir / "acme__quant")
            inboxes_before = _all_inboxes(ws)
            again = post(url, headers, body)
            assert again.status_code == 200 and again.json()["outcome"] == "duplicate", name
            assert tree_bytes(ws.forge_dir / "acme__quant") == issues_before, name
            assert _all_inboxes(ws) == inboxes_before, name
    summaries = [(m, e["summary"]) for m, entries in sorted(_all_inboxes(ws).items()) for e in entries]
    expected = sorted(item for effects in EXPECTED.values() for item in effects)
    assert sorted(summaries) == expected
    assert len(read_deliveries(ws)) == len(STORY), "a duplicate is not recorded again"
    assert (
        json.loads(ws.task_file(ROUND_TASK).with_name("events.jsonl").read_text().splitlines()[0])["type"]
        == "task.created"
    )
