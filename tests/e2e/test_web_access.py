"""``teamdeck web``'s doors, from outside with a plain HTTP client (S23): no data without
the token or the session it opens, no write without the session's CSRF token or from
another origin, the strict headers on every response, read-only mode, the addresses it
refuses to listen on; and a form too large refused whole (B29)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx2
import pytest
from support.web import TOKEN, WebServer, web_server

pytestmark = pytest.mark.slow

GATE = "task:checkout-api:g-api-dev-1"
SECRET_WORDS = ("zhangfei-dev", "checkout", "api-dev")
"""Names on the demo's page: none may be in a refusal."""


def session(server: WebServer) -> tuple[httpx2.Client, str]:
    """A client that opened the printed address (its cookie kept), and its CSRF token."""
    client = httpx2.Client(base_url=server.base, follow_redirects=True, timeout=30)
    page = client.get(f"/?token={TOKEN}")
    assert page.status_code == 200 and "teamdeck-session" in client.cookies
    confirm = client.get("/answer", params={"host": "demo", "key": GATE, "word": "approve"})
    return client, re.search(r'name="csrf" value="([^"]+)"', confirm.text).group(1)  # type: ignore[union-attr]


def approvals(root: Path) -> int:
    events = (root / "tasks" / "checkout-api" / "events.jsonl").read_text().splitlines()
    return sum(1 for line in events if json.loads(line)["type"] == "gate.approved")


@pytest.fixture
def server(demo: Path, tmp_path: Path) -> Any:
    with web_server(demo, tmp_path) as started:
        yield started


@pytest.mark.parametrize(
    "path",
    ["/", "/?token=wrong-token-0000000000", "/member?host=demo&team=quant&member=zhangfei-dev", "/events?view=%2F",
     "/run?host=demo&run=r-1", "/answer?host=demo&key=x&word=approve"],
)  # fmt: skip
def test_s23_a_wrong_or_missing_token_gets_401_and_no_data(server: WebServer, path: str) -> None:
    answer = httpx2.get(server.base + path, timeout=30, follow_redirects=False)
    assert answer.status_code == 401
    assert not any(word in answer.text for word in SECRET_WORDS)
    forged = httpx2.get(server.base + "/", cookies={"teamdeck-session": "made-up"}, timeout=30)
    assert forged.status_code == 401


def test_the_token_opens_an_httponly_strict_session_and_a_script_may_send_it_as_a_bearer(server: WebServer) -> None:
    opened = httpx2.get(server.url, timeout=30, follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == "/"
    cookie = opened.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    scripted = httpx2.get(server.base + "/", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
    assert scripted.status_code == 200 and "zhangfei-dev" in scripted.text


def test_s23_every_response_carries_the_strict_headers(server: WebServer) -> None:
    client, _csrf = session(server)
    for answer in (client.get("/"), client.get("/static/app.js"), httpx2.get(server.base + "/", timeout=30)):
        policy = answer.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
        assert "unsafe-inline" not in policy and answer.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in client.get("/").text  # no inline script: the one script is a file


def test_s23_a_write_without_the_csrf_token_or_from_another_origin_is_refused(server: WebServer, demo: Path) -> None:
    client, csrf = session(server)
    form = {"host": "demo", "key": GATE, "action": "approve", "note": ""}
    assert client.post("/answer", data=form).status_code == 403
    assert client.post("/answer", data={**form, "csrf": "guessed"}).status_code == 403
    elsewhere = client.post("/answer", data={**form, "csrf": csrf}, headers={"Origin": "http://evil.example"})
    assert elsewhere.status_code == 403
    assert approvals(demo) == 0
    done = client.post("/answer", data={**form, "csrf": csrf}, headers={"Origin": server.base})
    assert done.status_code == 200 and "approved" in done.text and approvals(demo) == 1


def test_b29_an_oversized_form_is_refused_whole(server: WebServer) -> None:
    client, csrf = session(server)
    huge = {"host": "demo", "team": "quant", "member": "zhangfei-dev", "text": "x" * 100_000, "csrf": csrf}
    assert client.post("/message", data=huge).status_code == 413


def test_read_only_shows_no_form_and_takes_no_write(demo: Path, tmp_path: Path) -> None:
    with web_server(demo, tmp_path, "--read-only") as server:
        client = httpx2.Client(base_url=server.base, follow_redirects=True, timeout=30)
        queue = client.get(f"/?token={TOKEN}")
        assert "read-only" in queue.text and "/answer?" not in queue.text
        member = client.get("/member", params={"host": "demo", "team": "quant", "member": "zhangfei-dev"})
        assert member.status_code == 200 and "<form" not in member.text
        refused = client.post("/answer", data={"host": "demo", "key": GATE, "action": "approve"})
        assert refused.status_code == 403 and approvals(demo) == 0


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (["--listen", "0.0.0.0:8765"], "--insecure-bind"),
        (["--tls-cert", "cert.pem"], "--tls-key"),
        (["--token-file", "short"], "at least 16"),
        (["--who", "ana smith"], "--who"),
    ],
    ids=["beyond-loopback-without-tls", "cert-without-key", "short-token", "who-with-a-space"],
)
def test_s23_addresses_and_secrets_it_refuses(
    run_cli: Any, demo: Path, tmp_path: Path, extra: list[str], named: str
) -> None:
    (tmp_path / "short").write_text("abc\n")
    extra = [str(tmp_path / part) if part == "short" else part for part in extra]
    refused = run_cli(demo, "web", *extra)
    assert refused.code != 0 and named in refused.err and not refused.out
