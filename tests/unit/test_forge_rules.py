"""Seed 001's rules where the fixture story does not reach: who is an agent, which team
discusses, who hears about a merge or a close, read-only workspaces, crash repair."""

from __future__ import annotations

import json

from support.forge_world import STORY, delivery, inbox, make_team, signed

from teamdeck.protocol.checks.validate import validate_workspace
from teamdeck.protocol.forge.deliveries import read_deliveries, receive
from teamdeck.protocol.forge.issues import issue_events, load_issue
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace


def _payload(name: str) -> dict:
    return json.loads(delivery(name)[1])


def _send(ws, payload: dict, event: str, delivery_id: str, event_type: str | None = None):
    body = json.dumps(payload).encode()
    return receive(ws, signed(body, event, delivery_id, event_type=event_type), body)


def test_discussion_goes_to_the_opener_s_team_only(ws):
    make_team(ws)
    create_team(ws, "other")
    add_member(ws, "other", "profiler")
    headers, body = delivery("issues-opened-parent-100")
    assert receive(ws, headers, body).outcome == "applied"
    assert len(inbox(ws, "zhangfei-dev")) == 1
    assert not ws.inbox("other", "profiler").exists(), "a member of another team is not asked"


def test_forge_agents_maps_a_login_to_a_member(ws):
    make_team(ws)
    (ws.root / ".teamdeck.yaml").write_text(
        "forge:\n  agents:\n    zf-bot: quant/zhangfei-dev\n    ghost: quant/nobody\n"
    )
    payload = _payload("issues-opened-sub-101")
    payload["issue"]["assignees"] = [{**payload["issue"]["assignees"][0], "login": "zf-bot"}]
    assert _send(ws, payload, "issues", "mapped").outcome == "applied"
    assert [entry["summary"] for entry in inbox(ws, "zhangfei-dev")] == [
        "work on acme/quant#101: [quant][sub][parent #100] 策略编码"
    ]


def test_a_merge_by_someone_else_tells_the_assignee_and_a_human_creator_is_never_notified(ws):
    make_team(ws)
    for name in STORY[2:4] + ("pull-request-opened-104",):
        headers, body = delivery(name)
        assert receive(ws, headers, body).outcome == "applied"
    merged = _payload("pull-request-closed-merged-104")
    merged["sender"]["login"] = "simayi-review"
    assert _send(ws, merged, "pull_request", "merged-by-reviewer").outcome == "applied"
    assert inbox(ws, "zhangfei-dev")[-1]["summary"] == "PR #104 merged: acme/quant#101 done"
    assert "simayi-review merged pull request #104" in inbox(ws, "zhangfei-dev")[-1]["text"]

    human = _payload("issues-closed-sub-102-by-coordinator")
    human["issue"]["user"]["login"] = "alex"
    before = {member: len(inbox(ws, member)) for member in ("guanyu-risk", "pangtong-fujunshi")}
    assert _send(ws, human, "issues", "human-creator").outcome == "applied"
    assert {member: len(inbox(ws, member)) for member in before} == before


def test_a_read_only_workspace_answers_503_and_writes_nothing(ws):
    make_team(ws)
    read_only = Workspace.at(ws.root, clock=ws.clock, actor=ws.actor, read_only=True, read_only_reason="test")
    headers, body = delivery(STORY[0])
    outcome = receive(read_only, headers, body)
    assert (outcome.outcome, outcome.busy) == ("failed", True) and "read-only" in outcome.detail
    assert not ws.forge_dir.exists()


def test_a_delivery_interrupted_after_its_messages_sends_nothing_twice_when_gitea_retries(ws):
    """Gitea redelivers a failed delivery with the same id: a crash after the assignment
    message but before deliveries.jsonl recorded it must not send the work twice."""
    make_team(ws)
    headers, body = delivery("issues-opened-sub-101")
    assert receive(ws, headers, body).outcome == "applied"
    ws.deliveries_log.write_text("")  # as if the process died before recording the delivery
    again = receive(ws, headers, body)
    assert again.outcome == "applied" and not any("message" in effect for effect in again.effects)
    assert len(inbox(ws, "zhangfei-dev")) == 1
    assert [record["outcome"] for record in read_deliveries(ws)] == ["applied"]
    assert load_issue(ws, "acme__quant/101").notified == ["assigned:zhangfei-dev"]
    assert issue_events(ws, "acme__quant/101")[0].type == "issue.created"


def test_validate_names_a_broken_issue_file_and_a_bad_delivery_line(ws):
    make_team(ws)
    headers, body = delivery("issues-opened-sub-101")
    assert receive(ws, headers, body).outcome == "applied"
    assert [p for p in validate_workspace(ws) if p.path.startswith("forge/")] == []
    path = ws.forge_issue_file("acme__quant/101")
    path.write_text(path.read_text().replace("status: working", "status: sleeping"))
    with ws.deliveries_log.open("a") as log:
        log.write("{not json\n")
    problems = {p.path: p for p in validate_workspace(ws) if p.path.startswith("forge/")}
    assert "status" in problems["forge/acme__quant/issues/101/issue.yaml"].where
    assert set(problems) == {"forge/acme__quant/issues/101/issue.yaml", "forge/deliveries.jsonl"}


def test_a_repository_or_number_that_cannot_be_a_path_is_refused_as_invalid(ws):
    make_team(ws)
    for delivery_id, repo, number in (("evil-repo", "../../etc", 101), ("evil-number", "acme/quant", -1)):
        payload = _payload("issues-opened-sub-101")
        payload["repository"]["full_name"] = repo
        payload["issue"]["number"] = payload["number"] = number
        outcome = _send(ws, payload, "issues", delivery_id)
        assert outcome.outcome == "invalid", delivery_id
    assert [path for path in ws.forge_dir.iterdir() if path.is_dir()] == [], "no issue directory was made"
    assert [record["outcome"] for record in read_deliveries(ws)] == ["invalid", "invalid"]
