"""A stalled Gitea issue, end to end through the fronts: ``teamdeck forge
replay`` posts the recorded assignment of #101 to the webhook server; zhangfei-dev never
comments; the clock moves and the automatic step nudges it twice, then opens the
decision; ``teamdeck decisions list/decide`` (another process) reassigns #101 to an idle
member, who gets its brief, and the assignee change reaches Gitea (a stand-in) through
forge/outbox.jsonl. ``teamdeck status`` says why zhangfei-dev counts as stalled.
docs/reliability.md: F18 (the replayed delivery acts once)."""

from __future__ import annotations

from datetime import UTC, datetime

from support.decision_world import MovableClock
from support.forge_world import GITEA, inbox, make_team, serving
from test_forge_outbound import TOKEN, fake_gitea

from teamdeck.protocol.autowork.step import supervise
from teamdeck.protocol.forge.issues import load_issue
from teamdeck.protocol.forge.outbox import read_outbox
from teamdeck.store.workspace import Workspace

MINUTE = 60.0
KEY = "task:stall-acme__quant-101:stall-zhangfei-dev-1"


def test_a_replayed_assignment_nobody_works_on_is_asked_about_and_reassigned(tmp_path, run_cli):
    clock = MovableClock(datetime.now(UTC))  # the files' own times stay in the past
    root = tmp_path / "ws"
    root.mkdir()
    ws = Workspace.at(root, clock=clock, actor="human:tester")
    make_team(ws)
    (root / ".teamdeck.yaml").write_text("autowork:\n  stallAfterSeconds: 600\n  nudges: 2\n  backoff: 2\n")
    with serving(ws) as url:
        replayed = run_cli(root, "forge", "replay", "--url", url, str(GITEA / "issues-opened-sub-101"))
        assert replayed.code == 0, replayed.err
        again = run_cli(root, "forge", "replay", "--url", url, str(GITEA / "issues-opened-sub-101"))
        assert again.code == 0, again.err
    assert [entry["summary"] for entry in inbox(ws, "zhangfei-dev")] == [
        "work on acme/quant#101: [quant][sub][parent #100] 策略编码"
    ]
    steps = []
    for minutes in (11, 21, 41):
        clock.advance(minutes * MINUTE)
        steps += [step.kind for step in supervise(ws, isolation="thread").steps]
    assert steps == ["nudge", "nudge", "stall-decision"]
    assert sum(e["summary"] == "Reminder: acme/quant#101 waits for you" for e in inbox(ws, "zhangfei-dev")) == 2

    listed = run_cli(root, "decisions", "list", "--json")
    assert listed.code == 0, listed.err
    [row] = [row for row in listed.json["decisions"] if row["key"] == KEY]
    assert "zhangfei-dev has not answered acme/quant#101 for 1 h 13 min" in row["reason"]
    status = run_cli(root, "status")
    assert "stalled: zhangfei-dev has not answered acme/quant#101" in status.out

    with fake_gitea() as (base, seen):
        env = {"TEAMDECK_FORGE_URL": base, "TEAMDECK_FORGE_TOKEN": TOKEN}
        decided = run_cli(root, "decisions", "decide", KEY, "reassign", "--note", "guanyu-risk", env=env)
    assert decided.code == 0, decided.err
    assert "acme/quant#101 reassigned to quant/guanyu-risk" in decided.out
    assert [(call["method"], call["path"]) for call in seen] == [
        ("POST", "/api/v1/repos/acme/quant/issues/101/comments"),
        ("PATCH", "/api/v1/repos/acme/quant/issues/101"),
    ]  # the comment saying why, then Gitea's EditIssueOption with the new assignees
    assert "zhangfei-dev has not answered acme/quant#101 for" in seen[0]["json"]["body"]
    assert seen[1]["json"] == {"assignees": ["guanyu-risk"]}
    assert [entry["summary"] for entry in inbox(ws, "guanyu-risk")] == [
        "work on acme/quant#101: [quant][sub][parent #100] 策略编码"
    ]
    assert load_issue(ws, "acme__quant/101").assignees == ["guanyu-risk"]
    assert [(entry.assignees, entry.state) for entry in read_outbox(ws)] == [(("guanyu-risk",), "delivered")]
    real_time = Workspace.at(root, actor="human:tester")  # the CLI gave the work by the real clock
    assert supervise(real_time, isolation="thread").steps == []  # guanyu's wait starts at its assignment
