"""Talking back to Gitea through its REST API: a comment on an issue, closing an issue.

The base URL comes from ``$TEAMDECK_FORGE_URL`` (else ``forge.url`` in
``.teamdeck.yaml``) and the token from ``$TEAMDECK_FORGE_TOKEN`` (never from a file in
the workspace: it is a secret). Requests use Gitea's ``Authorization: token …`` header
and a timeout; a failure is one :class:`~teamdeck.errors.WriteFailed` naming the issue,
the HTTP status and Gitea's message.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import httpx2

from teamdeck.errors import Refused, WriteFailed
from teamdeck.store.settings import load_settings
from teamdeck.store.workspace import Workspace

ENV_URL = "TEAMDECK_FORGE_URL"
ENV_TOKEN = "TEAMDECK_FORGE_TOKEN"
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class GiteaApi:
    """Gitea's REST API at ``base_url`` (``https://gitea.example.test/``) with ``token``."""

    base_url: str
    token: str
    timeout: float = TIMEOUT_S

    def _issue_url(self, repo: str, number: int) -> str:
        owner, _, name = repo.partition("/")
        if not owner or not name or "/" in name:
            raise Refused(f"'{repo}' is not a repository: write it as OWNER/NAME")
        return f"{self.base_url.rstrip('/')}/api/v1/repos/{owner}/{name}/issues/{number}"

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
