"""A local stand-in for Gitea's REST API (the parts the catch-up reads), on 127.0.0.1.

Its state is built from recorded deliveries (tests/fixtures/gitea/): each delivery's
``issue``, ``pull_request`` and ``comment`` objects are what Gitea's ``services/convert``
makes of them, the same objects its REST API answers with (``structs.Issue``,
``structs.PullRequest``, ``structs.Comment``); a ``status`` delivery becomes a
``structs.CommitStatus`` (``status`` holds the state, ``creator`` the sender). So the
API tells the story the deliveries told, as Gitea would after they were missed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from support.forge_world import delivery

TOKEN = "standin-token"


class GiteaState:
    """One repository's issues, pulls, comments, statuses and who closed what."""

    def __init__(self, repo: str = "acme/quant") -> None:
        self.repo = repo
        self.issues: dict[int, dict[str, Any]] = {}
        self.pulls: dict[int, dict[str, Any]] = {}
        self.comments: dict[int, dict[str, Any]] = {}
        self.statuses: dict[str, list[dict[str, Any]]] = {}
        self.closers: dict[int, str] = {}
        self.requests: list[str] = []

    def happen(self, *names: str) -> None:
        """What Gitea's state is after the deliveries ``names`` (whether delivered or not)."""
        for name in names:
            headers, body = delivery(name)
            payload = json.loads(body)
            event = headers["X-Gitea-Event"]
            if event == "issues":
                self.issues[payload["issue"]["number"]] = payload["issue"]
                if payload["action"] == "closed":
                    self.closers[payload["issue"]["number"]] = payload["sender"]["login"]
            elif event == "issue_comment":
                self.issues[payload["issue"]["number"]] = payload["issue"]
                self.comments[payload["comment"]["id"]] = payload["comment"]
            elif event == "pull_request":
                self.pulls[payload["pull_request"]["number"]] = payload["pull_request"]
            elif event == "status":
                self.statuses.setdefault(payload["sha"], []).append(
                    {
                        "id": payload["id"],
                        "status": payload["state"],
                        "target_url": payload["target_url"],
                        "description": payload["description"],
                        "url": f"https://gitea.example.test/api/v1/repos/{self.repo}/statuses/{payload['sha']}",
                        "context": payload["context"],
                        "creator": payload["sender"],
                        "created_at": payload["created_at"],
                        "updated_at": payload["updated_at"],
                    }
                )

    def answer(self, path: str, query: dict[str, str]) -> Any:
        """The JSON of one GET, or None for a path it does not serve."""
        base = f"/api/v1/repos/{self.repo}"
        since = _at(query["since"]) if "since" in query else None
        if path == f"{base}/issues":
            return _page([i for i in self.issues.values() if since is None or _at(i["updated_at"]) >= since], query)
        if path == f"{base}/pulls":
            ordered = sorted(self.pulls.values(), key=lambda p: _at(p["updated_at"]), reverse=True)
            return _page(ordered, query)
        if path == f"{base}/issues/comments":
            return _page([c for c in self.comments.values() if since is None or _at(c["updated_at"]) >= since], query)
        parts = path.removeprefix(f"{base}/").split("/")
        if parts[0] == "issues" and len(parts) >= 2 and parts[1].isdigit():
            number = int(parts[1])
            if len(parts) == 3 and parts[2] == "timeline":
                closer = self.closers.get(number)
                return _page([{"type": "close", "user": {"login": closer}}] if closer else [], query)
            return self.issues.get(number)
        if parts[0] == "commits" and len(parts) == 3 and parts[2] == "statuses":
            return _page(self.statuses.get(parts[1], []), query)
        return None


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _page(items: list[dict[str, Any]], query: dict[str, str]) -> list[dict[str, Any]]:
    limit, page = int(query.get("limit", "50")), int(query.get("page", "1"))
    return items[(page - 1) * limit : page * limit]


@contextmanager
def gitea_standin(state: GiteaState) -> Iterator[str]:
    """Serve ``state`` on a free loopback port; yields the base URL. Requests without the
    token are 401, unknown paths 404."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlparse(self.path)
            state.requests.append(self.path)
            if self.headers.get("Authorization") != f"token {TOKEN}":
                return self._send(401, {"message": "token is required"})
            query = {key: values[-1] for key, values in parse_qs(url.query).items()}
            found = state.answer(url.path, query)
            return self._send(404, {"message": "not found"}) if found is None else self._send(200, found)

        def _send(self, status: int, data: Any) -> None:
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json;charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
