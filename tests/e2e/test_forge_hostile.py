"""Hostile deliveries to ``teamdeck forge serve``: a 50 MB body, invalid
JSON, a title full of escape sequences and markup, a comment with 10,000 mentions, a
``Depends:`` cycle. Each has a clear outcome, loses nothing, and the server keeps
serving (every test ends with an ordinary delivery that is applied)."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from urllib.parse import urlsplit

import pytest
from support.forge_world import delivery, inbox, make_team, post, serving, signed, tree_bytes
from support.slow_clients import HALF_HEAD, all_closed_within, open_sockets

from teamdeck.protocol.forge.deliveries import read_deliveries
from teamdeck.protocol.forge.issues import load_issue
from teamdeck.webhook.app import MAX_CONNECTIONS

FIFTY_MB = 50 * 1024 * 1024
HOSTILE_TITLE = (
    "\x1b[2J\x1b]0;pwned\x07[bold red]boom[/] <script>alert(1)</script> ```\n# Gate approved \u202eevil\x9b31m"
)


@pytest.fixture
def team_ws(ws):
    make_team(ws)
    return ws


def _still_serving(url: str, ws) -> None:
    headers, body = delivery("issues-opened-parent-100")
    response = post(url, headers, body)
    assert response.status_code == 200 and response.json()["outcome"] in ("applied", "duplicate")
    assert ws.forge_issue_file("acme__quant/100").exists()


def _issue_body(number: int, title: str, body: str, *, opener: str, assignees: list[str] = ()) -> dict:
    """A Gitea ``issues`` payload for a new issue, shaped like the fixture's."""
    payload = json.loads(delivery("issues-opened-parent-100")[1])
    issue = payload["issue"]
    issue.update(number=number, title=title, body=body)
    issue["user"] = {**issue["user"], "login": opener}
    issue["assignees"] = [{**issue["user"], "login": login} for login in assignees] or None
    payload.update(number=number, sender={**payload["sender"], "login": opener})
    return payload


def _deliver(url: str, payload: dict, event: str, delivery_id: str, *, event_type: str | None = None):
    body = json.dumps(payload, ensure_ascii=False).encode()
    return post(url, signed(body, event, delivery_id, event_type=event_type), body)


def _raw_response(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_a_50_mb_body_is_413_before_it_is_read_and_nothing_is_written(team_ws):
    ws = team_ws
    before = tree_bytes(ws.root)
    with serving(ws) as url:
        parts = urlsplit(url)
        head = (
            f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
            f"X-Gitea-Event: issues\r\nX-Gitea-Delivery: big-1\r\nX-Gitea-Signature: {'0' * 64}\r\n"
        )
        # Declared: the answer comes before a byte of the body is sent.
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
            sock.sendall((head + f"Content-Length: {FIFTY_MB}\r\n\r\n").encode())
            assert _raw_response(sock).startswith(b"HTTP/1.1 413")

        # Streamed (chunked, no length): the server stops reading at its limit.
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
            sock.sendall((head + "Transfer-Encoding: chunked\r\n\r\n").encode())
            chunk = b"%x\r\n" % (1024 * 1024) + b"x" * (1024 * 1024) + b"\r\n"

            def stream() -> None:
                try:
                    for _ in range(50):
                        sock.sendall(chunk)
                    sock.sendall(b"0\r\n\r\n")
                except OSError:
                    pass  # the server answered and closed: what we want

            sender = threading.Thread(target=stream, daemon=True)
            sender.start()
            assert _raw_response(sock).startswith(b"HTTP/1.1 413")
            with contextlib.suppress(OSError):  # the server may have closed it already (it says so)
                sock.shutdown(socket.SHUT_RDWR)
            sender.join(20)
        assert tree_bytes(ws.root) == before, "a refused body writes nothing"
        _still_serving(url, ws)


def test_invalid_json_and_a_wrong_shape_are_400_recorded_once(team_ws):
    ws = team_ws
    with serving(ws) as url:
        body = b'{"action": "opened", "issue": {'
        response = post(url, signed(body, "issues", "bad-json"), body)
        assert response.status_code == 400 and response.json()["outcome"] == "invalid"
        assert "not JSON" in response.json()["detail"]
        again = post(url, signed(body, "issues", "bad-json"), body)
        assert again.status_code == 200 and again.json()["outcome"] == "duplicate"

        shape = json.dumps({"action": "opened", "repository": {"full_name": "acme/quant"}, "sender": {}}).encode()
        response = post(url, signed(shape, "issues", "bad-shape"), shape)
        assert response.status_code == 400 and "sender.login" in response.json()["detail"]

        unknown = b'{"action": "created", "ref": "main"}'
        response = post(url, signed(unknown, "create", "a-branch"), unknown)
        assert response.status_code == 202 and response.json()["outcome"] == "ignored"

        assert [(r["delivery"], r["outcome"]) for r in read_deliveries(ws)] == [
            ("bad-json", "invalid"),
            ("bad-shape", "invalid"),
            ("a-branch", "ignored"),
        ]
        assert not (ws.forge_dir / "acme__quant").exists()
        _still_serving(url, ws)


@pytest.mark.parametrize("opener", [b"[", b'{"a":'])
def test_b19_a_body_nested_100000_levels_is_400_recorded_once_without_a_traceback(team_ws, caplog, opener):
    """B19: it was a 500 with a traceback, not recorded, so Gitea
    redelivered it forever."""
    ws = team_ws
    closer = b"]" if opener == b"[" else b"}"
    body = opener * 100_000 + b"1" + closer * 100_000
    with serving(ws) as url:
        response = post(url, signed(body, "issues", "deep-1"), body)
        assert response.status_code == 400 and response.json()["outcome"] == "invalid"
        assert "nesting too deep" in response.json()["detail"]
        again = post(url, signed(body, "issues", "deep-1"), body)
        assert again.status_code == 200 and again.json()["outcome"] == "duplicate"
        assert [(r["delivery"], r["outcome"]) for r in read_deliveries(ws)] == [("deep-1", "invalid")]
        assert "Traceback" not in caplog.text and "RecursionError" not in caplog.text
        _still_serving(url, ws)


def test_b20_a_body_trickled_slower_than_the_deadline_is_408_and_the_connection_closed(team_ws):
    """B20: a client that sends a part of its body and then nothing
    held the connection open forever (200 held for 32 s+)."""
    ws = team_ws
    before = tree_bytes(ws.root)
    with serving(ws, body_timeout=0.5) as url:
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
            started = time.monotonic()
            sock.sendall(
                f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
                f"X-Gitea-Event: issues\r\nX-Gitea-Delivery: slow-1\r\nContent-Length: 1000\r\n\r\n{{".encode()
            )
            answer = _raw_response(sock)
            waited = time.monotonic() - started
            assert answer.startswith(b"HTTP/1.1 408"), answer[:100]
            assert 0.5 <= waited < 5
        assert tree_bytes(ws.root) == before
        _still_serving(url, ws)


def test_b30_heads_that_never_end_are_closed_in_time_and_a_delivery_is_applied_meanwhile(team_ws):
    """B30: a connection whose request head never ended (the first request's, or the
    next one's on a kept-alive connection) was held open forever; 1,100 of them took
    every file descriptor. Now each is closed at the head timeout."""
    ws = team_ws
    with serving(ws, head_timeout=1.0) as url:
        port = urlsplit(url).port
        with open_sockets(port, 10, HALF_HEAD) as heads, open_sockets(port, 1, b"") as (kept,):
            _still_serving(url, ws)  # answered at once while ten heads hang
            kept.sendall(f"GET /health HTTP/1.1\r\nHost: {urlsplit(url).netloc}\r\n\r\n".encode())
            assert _raw_response(kept).startswith(b"HTTP/1.1 200")
            kept.sendall(HALF_HEAD)  # the next request's head, never ended
            started = time.monotonic()
            assert all_closed_within([*heads, kept], 1.0 + 3) == [b""] * 11
            assert time.monotonic() - started < 4
        _still_serving(url, ws)


def test_b30_connections_beyond_the_cap_are_answered_503_and_closed_as_they_come(team_ws):
    """B30: connections beyond the webhook's cap are answered 503 and closed as they are
    accepted, before the head timeout; the held ones at the timeout; then it serves."""
    ws = team_ws
    with serving(ws, head_timeout=2.0) as url:
        with open_sockets(urlsplit(url).port, 50, HALF_HEAD) as socks:
            started = time.monotonic()
            beyond = all_closed_within(socks[MAX_CONNECTIONS:], 1.5)
            assert all(answer.startswith(b"HTTP/1.1 503") for answer in beyond), beyond[:2]
            assert time.monotonic() - started < 1.5
            assert all_closed_within(socks[:MAX_CONNECTIONS], 2.0 + 3) == [b""] * MAX_CONNECTIONS
        _still_serving(url, ws)


def test_a_title_of_escape_sequences_and_markup_is_kept_whole_but_never_reaches_an_inbox_raw(team_ws, run_cli):
    ws = team_ws
    with serving(ws) as url:
        payload = _issue_body(
            300, HOSTILE_TITLE, "body \x1b[31mred\x1b[0m\n````\n## Injected", opener="pangtong-fujunshi"
        )
        response = _deliver(url, payload, "issues", "hostile-title")
        assert response.status_code == 200 and response.json()["outcome"] == "applied"
        assert load_issue(ws, "acme__quant/300").title == HOSTILE_TITLE, "the record keeps the title exactly"
        texts = [entry["text"] + entry["summary"] for entry in inbox(ws, "zhangfei-dev")]
        assert len(texts) == 1
        for text in texts:
            assert not any(char in text for char in "\x1b\x07\x9b\u202e")
            assert "\n# Gate approved" not in text, "the title stays one inline code span"
            assert "`````text\nbody " in text, "the body sits in a fence longer than any backtick run in it"
        _still_serving(url, ws)
    listed = run_cli(ws.root, "forge", "issues")
    assert listed.code == 0 and "#300" in listed.out
    assert not any(char in listed.out for char in "\x1b\x07\x9b\u202e")
    assert listed.out.isascii() is False and run_cli(ws.root, "forge", "issues", "--json").out.isascii()


def test_a_comment_with_10000_mentions_notifies_each_known_agent_once(team_ws):
    ws = team_ws
    payload = json.loads(delivery("issue-comment-created-100-guanyu")[1])
    crowd = " ".join(f"@someone-{index}" for index in range(10_000))
    payload["comment"]["body"] = (
        f"{crowd}\n@zhangfei-dev @ZHANGFEI-DEV @guanyu-risk x@simayi-review simayi@review.example"
    )
    with serving(ws) as url:
        response = _deliver(url, payload, "issue_comment", "ten-thousand")
        assert response.status_code == 200 and response.json()["outcome"] == "applied"
        assert [entry["summary"] for entry in inbox(ws, "zhangfei-dev")] == [
            "guanyu-risk mentioned you on acme/quant#100"
        ]
        assert inbox(ws, "guanyu-risk") == [], "the commenter is not told about its own mention"
        assert inbox(ws, "simayi-review") == [], "an e-mail address is no mention"
        edited = {**payload, "action": "edited"}
        assert _deliver(url, edited, "issue_comment", "ten-thousand-edited").json()["outcome"] == "applied"
        assert len(inbox(ws, "zhangfei-dev")) == 1, "an edited comment does not notify again"
        assert load_issue(ws, "acme__quant/100").lastComment is not None
        _still_serving(url, ws)


def test_a_depends_cycle_holds_both_issues_with_the_cycle_named_and_closing_one_releases_the_other(team_ws, run_cli):
    ws = team_ws
    with serving(ws) as url:
        first = _issue_body(201, "[q][sub][parent #100] a", "Depends: #202", opener="zhangfei-dev")
        second = _issue_body(202, "[q][sub][parent #100] b", "Depends: #201", opener="guanyu-risk")
        assert _deliver(url, first, "issues", "c-1").status_code == 200
        assert _deliver(url, second, "issues", "c-2").status_code == 200
        for payload, login, key in ((first, "zhangfei-dev", "c-3"), (second, "guanyu-risk", "c-4")):
            assigned = _issue_body(
                payload["number"], payload["issue"]["title"], payload["issue"]["body"], opener=login, assignees=[login]
            )
            assigned["action"] = "assigned"
            response = _deliver(url, assigned, "issues", key, event_type="issue_assign")
            assert response.status_code == 200 and response.json()["outcome"] == "applied"
        a, b = load_issue(ws, "acme__quant/201"), load_issue(ws, "acme__quant/202")
        assert (a.status, b.status) == ("waiting", "waiting")
        assert a.problem is not None and "#201 -> #202 -> #201" in a.problem
        assert b.problem is not None and "#202 -> #201 -> #202" in b.problem
        assert [e["summary"] for e in inbox(ws, "zhangfei-dev") + inbox(ws, "guanyu-risk")] == []
        listed = run_cli(ws.root, "forge", "issues")
        assert "PROBLEM: Depends: cycle #201 -> #202 -> #201" in listed.out

        closed = _issue_body(
            201, "[q][sub][parent #100] a", "Depends: #202", opener="zhangfei-dev", assignees=["zhangfei-dev"]
        )
        closed.update(action="closed")
        closed["issue"]["state"] = "closed"
        assert _deliver(url, closed, "issues", "c-5").status_code == 200
        b = load_issue(ws, "acme__quant/202")
        assert (b.status, b.problem) == ("working", None)
        assert [e["summary"] for e in inbox(ws, "guanyu-risk")] == ["work on acme/quant#202: [q][sub][parent #100] b"]
        _still_serving(url, ws)


def test_a_bug_in_one_delivery_is_a_500_and_gitea_s_retry_applies_it_later(team_ws, monkeypatch):
    ws = team_ws
    from teamdeck.protocol.forge import deliveries

    def broken(*_args, **_kwargs):
        raise RuntimeError("a bug")

    headers, body = delivery("issues-opened-sub-101")
    with serving(ws) as url:
        with monkeypatch.context() as patch:
            patch.setattr(deliveries, "apply_delivery", broken)
            response = post(url, headers, body)
            assert response.status_code == 500 and response.json()["outcome"] == "failed"
        assert [r["outcome"] for r in read_deliveries(ws)] == ["in-progress"], "not recorded as done"
        retried = post(url, headers, body)
        assert retried.status_code == 200 and retried.json()["outcome"] == "applied"
        assert [entry["summary"] for entry in inbox(ws, "zhangfei-dev")] == [
            "work on acme/quant#101: [quant][sub][parent #100] 策略编码"
        ]
        _still_serving(url, ws)
