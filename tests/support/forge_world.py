"""The Gitea story of tests/fixtures/gitea/ (its README) and a workspace for it.

Team ``quant``: the lead ``team-lead`` (the person's Claude Code session) and the four
agents of the story, whose member names are their Gitea logins. alex is a human.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import uvicorn

from support.locations import REPO
from teamdeck.listen import server_config
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace
from teamdeck.webhook.app import create_app, limits

GITEA = REPO / "tests" / "fixtures" / "gitea"
SECRET = "teamdeck-test-secret"
TEAM = "quant"
AGENTS = {
    "pangtong-fujunshi": ("coordinator", "Coordinator: opens parent issues, runs round reviews."),
    "zhangfei-dev": ("developer", "Coding pioneer: code, scripts, implementation."),
    "guanyu-risk": ("risk", "Risk control: rules, limits, stop losses."),
    "simayi-review": ("reviewer", "Reviews pull requests."),
}
STORY = (
    "issues-opened-parent-100",
    "issue-comment-created-100-guanyu",
    "issues-opened-sub-101",
    "issues-assigned-sub-101-at-create",
    "issues-opened-sub-102",
    "issues-assigned-sub-102",
    "pull-request-opened-104",
    "pull-request-review-rejected-104",
    "pull-request-review-approved-104",
    "pull-request-closed-merged-104",
    "issues-closed-sub-101-by-creator",
    "issues-closed-sub-102-by-coordinator",
)
"""The fixture deliveries in the order Gitea sent them."""


def story_until(name: str) -> tuple[str, ...]:
    """The story's deliveries up to and including ``name``."""
    return STORY[: STORY.index(name) + 1]


def make_team(ws: Workspace) -> None:
    create_team(ws, TEAM, description="issue-driven team of acme/quant")
    for login, (agent_type, prompt) in AGENTS.items():
        add_member(ws, TEAM, login, agent_type=agent_type, prompt=prompt)


def delivery(name: str) -> tuple[dict[str, str], bytes]:
    folder = GITEA / name
    return json.loads((folder / "headers.json").read_text()), (folder / "body.json").read_bytes()


def signed(
    body: bytes, event: str, delivery_id: str, *, event_type: str | None = None, secret: str = SECRET
) -> dict[str, str]:
    """Headers as Gitea sends them for ``body``."""
    return {
        "Content-Type": "application/json",
        "X-Gitea-Delivery": delivery_id,
        "X-Gitea-Event": event,
        "X-Gitea-Event-Type": event_type or event,
        "X-Gitea-Signature": hmac.new(secret.encode(), body, hashlib.sha256).hexdigest(),
    }


def inbox(ws: Workspace, member: str) -> list[dict]:
    path = ws.inbox(TEAM, member)
    return json.loads(path.read_text()) if path.exists() else []


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes (lock files included)."""
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


@contextmanager
def serving(ws: Workspace, *, secret: str = SECRET, max_body: int | None = None, **options: Any) -> Iterator[str]:
    """``forge serve``'s application on Uvicorn in a thread, on a free loopback port,
    held to its limits (``options`` change them: ``body_timeout=0.5``); yields the hook
    URL. Stops the server (and waits for it, bounded) on exit."""
    app = create_app(ws, secret)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    server = uvicorn.Server(server_config(app, limits(max_body, **options), log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the webhook server did not start within 10 s")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/hook"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def post(url: str, headers: dict[str, str], body: bytes) -> httpx2.Response:
    """POST one delivery (bounded in time)."""
    sent = {name: value for name, value in headers.items() if name.lower() != "content-length"}
    return httpx2.post(url, content=body, headers=sent, timeout=20)
