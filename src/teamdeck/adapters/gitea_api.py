"""Talking to Gitea through its REST API: a comment on an issue, closing an issue, setting its assignees, and
reading what changed for the catch-up (protocol/forge/catchup.py's ``ForgeReader``).

The base URL comes from ``$TEAMDECK_FORGE_URL`` (else ``forge.url`` in
``.teamdeck.yaml``) and the token from ``$TEAMDECK_FORGE_TOKEN`` (never from a file in
the workspace: it is a secret). Requests use Gitea's ``Authorization: token …`` header
and a timeout; a failure is one :class:`~teamdeck.errors.WriteFailed` naming the issue,
the HTTP status and Gitea's message.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx2

from teamdeck.errors import NotFound, Refused, WriteFailed
from teamdeck.store.settings import load_settings
from teamdeck.store.workspace import Workspace

PAGE = 50
"""Items per page read (Gitea's default maximum)."""
MAX_PAGES = 20
"""At most this many pages per list in one catch-up (the rest is read by the next one)."""
ENV_URL = "TEAMDECK_FORGE_URL"
ENV_TOKEN = "TEAMDECK_FORGE_TOKEN"
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class GiteaApi:
    """Gitea's REST API at ``base_url`` (``https://gitea.example.test/``) with ``token``."""

    base_url: str
    token: str
    timeout: float = TIMEOUT_S

    def _repo_url(self, repo: str) -> str:
        owner, _, name = repo.partition("/")
        if not owner or not name or "/" in name:
            raise Refused(f"'{repo}' is not a repository: write it as OWNER/NAME")
        return f"{self.base_url.rstrip('/')}/api/v1/repos/{owner}/{name}"

    def _issue_url(self, repo: str, number: int) -> str:
        return f"{self._repo_url(repo)}/issues/{number}"

    def _get(self, url: str, params: dict[str, Any], what: str) -> Any:
        headers = {"Authorization": f"token {self.token}", "Accept": "application/json"}
        try:
            response = httpx2.get(url, params=params, headers=headers, timeout=self.timeout)
        except httpx2.HTTPError as err:
            raise WriteFailed(f"Could not read {what}: {type(err).__name__}: {err}") from err
        if response.status_code == 404:
            raise NotFound(f"Could not read {what}: Gitea answered HTTP 404 (deleted, or not visible to the token)")
        if response.status_code >= 300:
            raise WriteFailed(
                f"Could not read {what}: Gitea answered HTTP {response.status_code}: {response.text[:200]}"
            )
        try:
            return response.json()
        except ValueError:
            raise WriteFailed(f"Could not read {what}: Gitea's answer is not JSON") from None

    def _pages(self, url: str, params: dict[str, Any], what: str, *, until: str | None = None) -> list[dict[str, Any]]:
        """Every item of a paged list (``until``: stop at the first item updated before it,
        for lists sorted newest first)."""
        items: list[dict[str, Any]] = []
        for page in range(1, MAX_PAGES + 1):
            found = self._get(url, {**params, "limit": PAGE, "page": page}, what)
            if not isinstance(found, list):
                raise WriteFailed(f"Could not read {what}: Gitea's answer is not a list")
            batch = [item for item in found if isinstance(item, dict)]
            if until is not None:
                kept = [item for item in batch if _at(item.get("updated_at")) >= _at(until)]
                items.extend(kept)
                if len(kept) < len(batch):
                    break
            else:
                items.extend(batch)
            if len(found) < PAGE:
                break
        return items

    def issues_since(self, repo: str, since: str) -> list[dict[str, Any]]:
        params = {"state": "all", "type": "issues", "since": since}
        return self._pages(f"{self._repo_url(repo)}/issues", params, f"the issues of {repo}")

    def pulls_since(self, repo: str, since: str) -> list[dict[str, Any]]:
        params = {"state": "all", "sort": "recentupdate"}
        return self._pages(f"{self._repo_url(repo)}/pulls", params, f"the pull requests of {repo}", until=since)

    def comments_since(self, repo: str, since: str) -> list[dict[str, Any]]:
        return self._pages(f"{self._repo_url(repo)}/issues/comments", {"since": since}, f"the comments of {repo}")

    def issue(self, repo: str, number: int) -> dict[str, Any]:
        found = self._get(self._issue_url(repo, number), {}, f"{repo}#{number}")
        if not isinstance(found, dict):
            raise WriteFailed(f"Could not read {repo}#{number}: Gitea's answer is not an object")
        return found

    def closed_by(self, repo: str, number: int) -> str | None:
        events = self._pages(self._issue_url(repo, number) + "/timeline", {}, f"the timeline of {repo}#{number}")
        closes = [event for event in events if event.get("type") == "close" and isinstance(event.get("user"), dict)]
        return str(closes[-1]["user"].get("login")) if closes else None

    def statuses(self, repo: str, sha: str) -> list[dict[str, Any]]:
        return self._pages(f"{self._repo_url(repo)}/commits/{sha}/statuses", {}, f"the statuses of {sha[:12]}")

    def _send(self, method: str, url: str, body: dict[str, Any], what: str) -> dict[str, Any]:
        headers = {"Authorization": f"token {self.token}", "Accept": "application/json"}
        try:
            response = httpx2.request(method, url, json=body, headers=headers, timeout=self.timeout)
        except httpx2.HTTPError as err:
            raise WriteFailed(f"Could not {what}: {type(err).__name__}: {err}") from err
        if response.status_code >= 300:
            raise WriteFailed(f"Could not {what}: Gitea answered HTTP {response.status_code}: {response.text[:200]}")
        try:
            data = response.json()
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}

    def comment(self, repo: str, number: int, text: str) -> int | None:
        """Post ``text`` as a comment on issue (or PR) ``number``; returns the comment's id.

        Raises:
            Refused: empty text or a bad repository name; WriteFailed: Gitea refused or
                could not be reached.
        """
        if not text.strip():
            raise Refused(f"Could not comment on {repo}#{number}: the text is empty")
        url = self._issue_url(repo, number) + "/comments"
        data = self._send("POST", url, {"body": text}, f"comment on {repo}#{number}")
        found = data.get("id")
        return found if isinstance(found, int) else None

    def close_issue(self, repo: str, number: int) -> None:
        """Close issue ``number`` (``PATCH .../issues/{n}`` with ``state: closed``)."""
        self._send("PATCH", self._issue_url(repo, number), {"state": "closed"}, f"close {repo}#{number}")

    def set_assignees(self, repo: str, number: int, logins: list[str]) -> None:
        """Make ``logins`` the assignees of issue ``number`` (``PATCH .../issues/{n}`` with
        ``assignees``: Gitea's EditIssueOption replaces the list)."""
        what = f"assign {repo}#{number} to {', '.join(logins) or 'nobody'}"
        self._send("PATCH", self._issue_url(repo, number), {"assignees": logins}, what)


def _at(text: object) -> datetime:
    """An RFC 3339 time (any zone); the earliest time when it is not one."""
    try:
        found = datetime.fromisoformat(str(text))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return found if found.tzinfo is not None else found.replace(tzinfo=UTC)


def api_from_env(ws: Workspace) -> GiteaApi | None:
    """The API the environment configures, or None when the URL or the token is missing."""
    url = os.environ.get(ENV_URL) or load_settings(ws.root).forge.url
    token = os.environ.get(ENV_TOKEN)
    return GiteaApi(url, token) if url and token else None


def require_api(ws: Workspace, action: str) -> GiteaApi:
    """:func:`api_from_env`, or a Refused naming what to set."""
    api = api_from_env(ws)
    if api is None:
        raise Refused(
            f"Could not {action}: set ${ENV_URL} (or forge.url in .teamdeck.yaml) and ${ENV_TOKEN} "
            "to a Gitea access token; nothing was sent"
        )
    return api
