"""Talking back to Gitea: ``teamdeck forge comment`` and the round-review
outcome, checked against a local stand-in for Gitea's REST API on 127.0.0.1 that
records method, path, headers and JSON body; and ``teamdeck forge replay`` /
``teamdeck forge serve`` as a person runs them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx2
import pytest
from support.forge_world import GITEA, SECRET, STORY, delivery, inbox, make_team, post, serving, signed

from teamdeck.adapters.forge_outbox import deliver_if_configured, deliver_outbox
from teamdeck.adapters.gitea_api import GiteaApi
from teamdeck.decisions.registry import answer_decision
from teamdeck.errors import WriteFailed
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.forge.issues import load_issue
from teamdeck.protocol.forge.outbox import read_outbox
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.view.refresh.build import build_snapshot

TOKEN = "test-token-123"
ROUND_TASK = "round-acme__quant-100-1"


@contextmanager
def fake_gitea(status: int = 201) -> Iterator[tuple[str, list[dict]]]:
    """A Gitea API stand-in; yields its base URL and the requests it got."""
    seen: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def _record(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            seen.append(
                {
                    "method": self.command,
                    "path": self.path,
                    "headers": dict(self.headers),
                    "json": json.loads(raw or b"null"),
                }
            )
            answer = json.dumps({"id": 9001} if status < 300 else {"message": "token is invalid"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        do_POST = do_PATCH = _record

        def log_message(self, *_args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", seen
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()


@pytest.fixture
def story_ws(ws):
    """The Gitea story delivered: the round review of #100 waits."""
    make_team(ws)
    with serving(ws) as url:
        for name in STORY:
            headers, body = delivery(name)
            assert post(url, headers, body).status_code == 200
    return ws


def _api_env(monkeypatch, base: str) -> None:
    monkeypatch.setenv("TEAMDECK_FORGE_URL", base)
    monkeypatch.setenv("TEAMDECK_FORGE_TOKEN", TOKEN)


def _is_gitea_call(request: dict, method: str, path: str) -> None:
    assert (request["method"], request["path"]) == (method, path)
    assert request["headers"]["Authorization"] == f"token {TOKEN}"
    assert request["headers"]["Content-Type"] == "application/json"
    assert request["headers"]["Accept"] == "application/json"


def test_forge_comment_posts_gitea_s_create_comment_call(run_cli, ws):
    with fake_gitea() as (base, seen):
        env = {"TEAMDECK_FORGE_URL": base, "TEAMDECK_FORGE_TOKEN": TOKEN}
        result = run_cli(ws.root, "forge", "comment", "acme/quant", "101", "[teamdeck] hello 张飞", "--json", env=env)
    assert result.code == 0, result.err
    assert result.json["commentId"] == 9001 and result.out.isascii()
    (request,) = seen
    _is_gitea_call(request, "POST", "/api/v1/repos/acme/quant/issues/101/comments")
    assert request["json"] == {"body": "[teamdeck] hello 张飞"}


def test_forge_comment_says_what_is_missing_and_what_gitea_answered(run_cli, ws):
    missing = run_cli(ws.root, "forge", "comment", "acme/quant", "1", "x", env={"TEAMDECK_FORGE_TOKEN": ""})
    assert missing.code != 0 and "TEAMDECK_FORGE_TOKEN" in missing.err and "Traceback" not in missing.err
    with fake_gitea(status=401) as (base, seen):
        env = {"TEAMDECK_FORGE_URL": base, "TEAMDECK_FORGE_TOKEN": TOKEN}
        refused = run_cli(ws.root, "forge", "comment", "acme/quant", "1", "x", env=env)
    assert refused.code != 0 and "HTTP 401" in refused.err and "Traceback" not in refused.err
    assert len(seen) == 1


def test_approving_the_round_queues_the_outcome_and_the_adapter_posts_it_and_closes_the_parent(story_ws, monkeypatch):
    ws = story_ws
    with fake_gitea() as (base, seen):
        _api_env(monkeypatch, base)
        change = decide_gate(ws, ROUND_TASK, "round-review", "approve")
        assert seen == []  # the protocol posts nothing: it queued the outcome
        [entry] = read_outbox(ws)
        assert (entry.state, entry.ref, entry.close) == ("pending", "acme/quant#100", True)
        delivered = deliver_if_configured(ws)
    assert load_task(ws, ROUND_TASK).state == "done"
    comment, close = seen
    _is_gitea_call(comment, "POST", "/api/v1/repos/acme/quant/issues/100/comments")
    assert comment["json"]["body"].startswith("[teamdeck] Round 1 review: goal achieved (decided by human:tester)")
    _is_gitea_call(close, "PATCH", "/api/v1/repos/acme/quant/issues/100")
    assert close["json"] == {"state": "closed"}
    assert delivered == ["posted the outcome on acme/quant#100 and closed it"]
    assert [entry.state for entry in read_outbox(ws)] == ["delivered"]
    assert load_issue(ws, "acme__quant/100").outcome == "achieved"
    last = inbox(ws, "pangtong-fujunshi")[-1]
    assert last["summary"] == "round 1 of acme/quant#100: goal achieved"
    assert "closes it on Gitea" in last["text"]
    assert any("queued in forge/outbox.jsonl" in notice for notice in change.notices)


def test_a_delivery_that_keeps_failing_waits_in_the_queue_and_a_retry_posts_only_what_is_missing(story_ws):
    """The comment goes through, closing is refused three times: the entry is failed and
    a decision; retried, only the close is sent (the comment is not posted twice)."""
    ws = story_ws
    decide_gate(ws, ROUND_TASK, "round-review", "approve")

    class Gitea:
        def __init__(self, refuse_close: bool) -> None:
            self.calls: list[str] = []
            self.refuse_close = refuse_close

        def comment(self, repo, number, text):
            self.calls.append("comment")
            return 1

        def close_issue(self, repo, number):
            self.calls.append("close")
            if self.refuse_close:
                raise WriteFailed("Could not close acme/quant#100: Gitea answered HTTP 500")

    first = Gitea(refuse_close=True)
    [line] = deliver_outbox(ws, first, pause_s=0)
    assert first.calls == ["comment", "close", "close", "close"]
    assert "waits in the decision queue" in line and "HTTP 500" in line
    [decision] = [d for d in build_snapshot(ws).decisions if d.kind == "forge-delivery"]
    assert decision.key.startswith("forge:") and "HTTP 500" in decision.reason
    answer_decision(ws, decision, "approve", None)  # retry
    assert [d.kind for d in build_snapshot(ws).decisions if d.kind == "forge-delivery"] == []
    second = Gitea(refuse_close=False)
    assert deliver_outbox(ws, second, pause_s=0) == ["posted the outcome on acme/quant#100 and closed it"]
    assert second.calls == ["close"]
    assert [entry.state for entry in read_outbox(ws)] == ["delivered"]


def test_a_failed_delivery_dropped_leaves_the_queue_and_gitea_alone(story_ws):
    ws = story_ws
    decide_gate(ws, ROUND_TASK, "round-review", "approve")
    api = GiteaApi("http://127.0.0.1:9/", TOKEN, timeout=0.5)  # nothing listens on port 9
    [line] = deliver_outbox(ws, api, tries=1, pause_s=0)
    assert "Gitea was not updated" in line
    [decision] = [d for d in build_snapshot(ws).decisions if d.kind == "forge-delivery"]
    answer_decision(ws, decision, "drop", "Gitea is gone")
    assert [entry.state for entry in read_outbox(ws)] == ["dropped"]
    assert deliver_if_configured(ws) == []
    assert [d for d in build_snapshot(ws).decisions if d.kind == "forge-delivery"] == []


def test_rejecting_the_round_posts_the_note_and_a_new_round_opens_when_its_subs_are_final(story_ws, monkeypatch):
    ws = story_ws
    with fake_gitea() as (base, seen):
        _api_env(monkeypatch, base)
        decide_gate(ws, ROUND_TASK, "round-review", "reject", note="the backtest report is missing")
        deliver_if_configured(ws)
    assert load_task(ws, ROUND_TASK).state == "canceled"
    (comment,) = seen
    _is_gitea_call(comment, "POST", "/api/v1/repos/acme/quant/issues/100/comments")
    assert "a new round is needed" in comment["json"]["body"]
    assert "the backtest report is missing" in comment["json"]["body"]
    assert "@pangtong-fujunshi" in comment["json"]["body"]
    assert load_issue(ws, "acme__quant/100").outcome == "new-round"
    assert "Open the next round" in inbox(ws, "pangtong-fujunshi")[-1]["text"]

    # Round 2: a new sub (#103) is opened and closed; the review opens again.
    payload = json.loads(delivery("issues-closed-sub-102-by-coordinator")[1])
    payload["number"] = payload["issue"]["number"] = 103
    payload["issue"]["title"] = "[quant][sub][parent #100] 回测报告"
    payload["issue"]["body"] = "Parent: #100"
    body = json.dumps(payload).encode()
    with serving(ws) as url:
        assert post(url, signed(body, "issues", "round-2"), body).json()["outcome"] == "applied"
    assert load_task(ws, "round-acme__quant-100-2").gate("round-review").state == "blocked"
    assert load_issue(ws, "acme__quant/100").reviewedSubs == [101, 102, 103]


def test_without_api_settings_the_decision_stands_and_says_gitea_was_not_updated(story_ws, monkeypatch):
    monkeypatch.delenv("TEAMDECK_FORGE_URL", raising=False)
    monkeypatch.delenv("TEAMDECK_FORGE_TOKEN", raising=False)
    change = decide_gate(story_ws, ROUND_TASK, "round-review", "approve")
    assert change.task.state == "done"
    [said] = deliver_if_configured(story_ws)
    assert "not posted on Gitea" in said and "teamdeck forge deliver" in said
    assert [entry.state for entry in read_outbox(story_ws)] == ["pending"]


def test_gate_approve_on_the_command_line_delivers_at_once_and_forge_deliver_says_nothing_waits(story_ws, run_cli):
    with fake_gitea() as (base, seen):
        env = {"TEAMDECK_FORGE_URL": base, "TEAMDECK_FORGE_TOKEN": TOKEN}
        approved = run_cli(story_ws.root, "gate", "approve", ROUND_TASK, "round-review", env=env)
        assert approved.code == 0, approved.err
        assert "posted the outcome on acme/quant#100 and closed it" in approved.out
        again = run_cli(story_ws.root, "forge", "deliver", env=env)
    assert [request["method"] for request in seen] == ["POST", "PATCH"]
    assert again.code == 0 and "nothing waits" in again.out


def test_forge_replay_posts_recorded_folders_to_a_running_server(run_cli, ws):
    make_team(ws)
    folders = [str(GITEA / name) for name in STORY[:3]]
    with serving(ws) as url:
        result = run_cli(ws.root, "forge", "replay", *folders, "--url", url, "--json")
        again = run_cli(ws.root, "forge", "replay", folders[0], "--url", url)
    assert result.code == 0, result.err
    assert [item["answer"]["outcome"] for item in result.json["deliveries"]] == ["applied"] * 3
    assert again.code == 0 and again.out.startswith("200 duplicate")
    assert load_issue(ws, "acme__quant/101").status == "working"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_forge_serve_refuses_to_start_without_a_secret_and_serves_with_one(run_cli, ws):
    make_team(ws)
    refused = run_cli(ws.root, "forge", "serve", "--listen", "127.0.0.1:1", env={"TEAMDECK_FORGE_SECRET": ""})
    assert refused.code != 0 and "TEAMDECK_FORGE_SECRET" in refused.err
    port = _free_port()
    env = {**os.environ, "TEAMDECK_FORGE_SECRET": SECRET, "TEAMDECK_WORKSPACE": ""}
    command = [
        sys.executable,
        "-m",
        "teamdeck",
        "--workspace",
        str(ws.root),
        "forge",
        "serve",
        "--listen",
        f"127.0.0.1:{port}",
    ]
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx2.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            assert time.monotonic() < deadline and server.poll() is None, "forge serve did not come up"
            time.sleep(0.1)
        headers, body = delivery(STORY[0])
        response = post(f"http://127.0.0.1:{port}/hook", headers, body)
        assert response.status_code == 200 and response.json()["outcome"] == "applied"
        assert len(inbox(ws, "zhangfei-dev")) == 1
    finally:
        server.terminate()
        server.wait(10)
