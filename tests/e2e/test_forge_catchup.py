"""Catching up after missed deliveries (protocol/forge/catchup.py) against a local Gitea
API stand-in (tests/support/gitea_standin.py): what was missed has the effects the deliveries
would have had, and when Gitea's webhooks arrive later nothing happens twice (F18)."""

from __future__ import annotations

import json

import pytest
from support.forge_world import STORY, delivery, inbox, make_team, story_until
from support.gitea_standin import TOKEN, GiteaState, gitea_standin

from teamdeck.adapters.gitea_api import GiteaApi
from teamdeck.errors import WriteFailed
from teamdeck.protocol.forge.catchup import catch_up, read_marks
from teamdeck.protocol.forge.deliveries import receive
from teamdeck.protocol.forge.issues import list_issues
from teamdeck.store.workspace import Workspace

MEMBERS = ("pangtong-fujunshi", "zhangfei-dev", "guanyu-risk", "simayi-review")
SEEN = ("issues-opened-parent-100",)
MISSED = (
    *story_until("pull-request-opened-104")[len(SEEN) :],
    "status-failure-104",
    "issue-comment-created-101-action-report",
)
"""Missed while the server was down (Gitea's API shows their outcome, not every step:
a head commit pushed over is not seen, so the story stops before one)."""


def _summaries(ws: Workspace) -> dict[str, list[str]]:
    return {member: sorted(entry["summary"] for entry in inbox(ws, member)) for member in MEMBERS}


def _issues(ws: Workspace) -> list[tuple]:
    issues, problems = list_issues(ws)
    assert problems == []
    return [
        (
            i.number,
            i.status,
            i.state,
            tuple(i.assignees),
            i.pull.sha if i.pull else None,
            i.work.kind if i.work else None,
            i.report.comment if i.report else None,
            tuple(sorted(i.notified)),
        )
        for i in issues
    ]


def _watched_then_missed(ws: Workspace, *missed: str) -> GiteaState:
    """``ws`` received the first delivery, then missed ``missed``: Gitea's state after both."""
    make_team(ws)
    _receive_all(ws, SEEN)
    state = GiteaState()
    state.happen(*SEEN, *missed)
    return state


def _receive_all(ws: Workspace, names: tuple[str, ...]) -> None:
    for name in names:
        outcome = receive(ws, *delivery(name))
        assert outcome.outcome in ("applied", "duplicate"), (name, outcome)


@pytest.fixture
def delivered(tmp_path) -> Workspace:
    """The same story with every delivery received: what the catch-up must equal."""
    ws = Workspace(tmp_path / "delivered")
    ws.root.mkdir()
    make_team(ws)
    _receive_all(ws, SEEN + MISSED)
    return ws


def test_missed_deliveries_are_caught_up_and_the_late_webhooks_change_nothing(ws, delivered):
    state = _watched_then_missed(ws, *MISSED)
    with gitea_standin(state) as url:
        done = catch_up(ws, GiteaApi(url, TOKEN))
    assert _summaries(ws) == _summaries(delivered)
    assert _issues(ws) == _issues(delivered)
    assert any("ci_failure message to quant/zhangfei-dev" in line for line in done.lines)
    assert "acme/quant" in read_marks(ws)

    inboxes = {member: inbox(ws, member) for member in MEMBERS}
    issues = _issues(ws)
    _receive_all(ws, MISSED)  # Gitea's webhooks arrive after all
    assert {member: inbox(ws, member) for member in MEMBERS} == inboxes
    assert _issues(ws) == issues

    with gitea_standin(state) as url:
        again = catch_up(ws, GiteaApi(url, TOKEN))
    assert again.lines == [] and {member: inbox(ws, member) for member in MEMBERS} == inboxes


def test_a_catch_up_reads_only_what_changed_since_the_last_one(ws):
    state = _watched_then_missed(ws, "issue-comment-created-100-guanyu")
    with gitea_standin(state) as url:
        catch_up(ws, GiteaApi(url, TOKEN))
        mark = read_marks(ws)["acme/quant"]
        assert mark.startswith("2026-11-23T01:12:40"), "the newest updated_at read, in UTC"
        state.requests.clear()
        catch_up(ws, GiteaApi(url, TOKEN))
    issues_read = [path for path in state.requests if "/issues?" in path]
    assert issues_read and all("since=2026-11-23T01%3A12%3A40" in path for path in issues_read)


def test_a_catch_up_the_api_refuses_is_one_line_and_moves_no_mark(ws):
    state = _watched_then_missed(ws, "issue-comment-created-100-guanyu")
    with gitea_standin(state) as url, pytest.raises(WriteFailed) as refused:
        catch_up(ws, GiteaApi(url, "a-wrong-token"))
    assert "HTTP 401" in str(refused.value) and "\n" not in str(refused.value)
    assert read_marks(ws) == {}
    assert inbox(ws, "pangtong-fujunshi") == []


def test_the_catch_up_is_logged_as_deliveries(ws):
    state = _watched_then_missed(ws, "issue-comment-created-100-guanyu")
    with gitea_standin(state) as url:
        catch_up(ws, GiteaApi(url, TOKEN))
    records = [json.loads(line) for line in ws.deliveries_log.read_text().splitlines()]
    caught = [r for r in records if r["delivery"].startswith("catch-up-") and r["outcome"] == "applied"]
    assert {r["event"] for r in caught} == {"issues", "issue_comment"}


def test_a_missed_merge_and_closes_release_the_dependant_and_open_the_round(ws, tmp_path):
    """The end of the story missed: the PR merged, #101 closed by its creator (the
    timeline says who), #102 closed by the coordinator; the catch-up releases #102 and
    opens the round review as the webhooks would have, and they change nothing later."""
    story = story_until("pull-request-review-approved-104")
    missed = STORY[len(story) :]
    delivered = Workspace.at(tmp_path / "delivered", clock=ws.clock, actor=ws.actor)
    delivered.root.mkdir()
    make_team(delivered)
    _receive_all(delivered, story + missed)

    make_team(ws)
    _receive_all(ws, story)
    state = GiteaState()
    state.happen(*story, *missed)
    with gitea_standin(state) as url:
        done = catch_up(ws, GiteaApi(url, TOKEN))
    assert _summaries(ws) == _summaries(delivered)
    assert _issues(ws) == _issues(delivered)
    assert any("round 1 review of acme/quant#100 opened" in line for line in done.lines)
    closed_102 = next(i for i in list_issues(ws)[0] if i.number == 102)
    assert closed_102.closedBy == "pangtong-fujunshi", "who closed it, from the issue's timeline"

    inboxes = {member: inbox(ws, member) for member in MEMBERS}
    _receive_all(ws, missed)
    assert {member: inbox(ws, member) for member in MEMBERS} == inboxes


def test_forge_catch_up_on_the_command_line(ws, run_cli):
    state = _watched_then_missed(ws, "issue-comment-created-100-guanyu")
    unset = run_cli(ws.root, "forge", "catch-up", env={"TEAMDECK_FORGE_URL": "", "TEAMDECK_FORGE_TOKEN": ""})
    assert unset.code != 0 and len(unset.err.strip().splitlines()) == 1 and "TEAMDECK_FORGE_TOKEN" in unset.err
    with gitea_standin(state) as url:
        env = {"TEAMDECK_FORGE_URL": url, "TEAMDECK_FORGE_TOKEN": TOKEN}
        first = run_cli(ws.root, "forge", "catch-up", "--json", env=env)
        again = run_cli(ws.root, "forge", "catch-up", env=env)
    assert first.code == 0, first.err
    assert any("mention message to quant/pangtong-fujunshi" in line for line in first.json["effects"])
    assert again.code == 0 and again.out.strip() == "nothing was missed: every change on Gitea had its effect"


def test_a_comment_on_an_issue_gone_from_gitea_is_skipped_and_the_rest_caught_up(ws):
    state = _watched_then_missed(ws, "issues-opened-sub-101", "issue-comment-created-100-guanyu")
    orphan = {**state.comments[1203], "id": 1299, "issue_url": "https://gitea.example.test/acme/quant/issues/99"}
    state.comments[1299] = orphan
    with gitea_standin(state) as url:
        done = catch_up(ws, GiteaApi(url, TOKEN))
    assert any(line.startswith("comment 1299 on #99 skipped: ") and "HTTP 404" in line for line in done.lines)
    assert [e["summary"] for e in inbox(ws, "pangtong-fujunshi")] == ["guanyu-risk mentioned you on acme/quant#100"]
    assert "acme/quant" in read_marks(ws)
