"""Catching up with Gitea after deliveries were missed (the server was down, a delivery
failed for good): the issues, pull requests and comments changed since the last
catch-up are read from Gitea's REST API and turned into the deliveries Gitea would have
sent, each received exactly as a webhook delivery is (protocol/forge/deliveries.py:
logged, under the same lock, the same rules). Every one-time effect of the rules is keyed
by what it is about (protocol/forge/context.py), so a webhook that arrives after the
catch-up, or a catch-up after the webhook, acts once.

The core does no network I/O: the reader (:class:`ForgeReader`) is handed in by a front;
teamdeck/adapters/gitea_api.py is the real one. ``forge/catchup.json`` keeps, per
repository, the newest ``updated_at`` seen; the first catch-up of a repository starts at
the first delivery teamdeck recorded (it was watching from then on), or at the opening of
the first issue of it teamdeck knows when that is earlier by Gitea's clock.

What a change becomes:
- an issue teamdeck never saw: ``issues``/``opened`` (then ``closed``, by whoever the
  issue's timeline says closed it, when it is closed); a known one: ``closed`` or
  ``reopened`` when its state changed, ``assigned``/``unassigned`` when its assignees
  did, else ``edited``.
- an open pull request: ``pull_request``/``opened`` (the rules treat a known PR with the
  same head commit as nothing new); a closed one: ``closed`` (merged or not).
- a comment: ``issue_comment``/``created`` (recorded once per comment id).
- a failed commit status on an open PR's head: ``status``.
Reviews are not read back (a review payload has no id to tell a second one from a new one).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from teamdeck.errors import NotFound, TeamdeckError
from teamdeck.ids import new_ulid
from teamdeck.protocol.forge.deliveries import Outcome, read_deliveries, receive
from teamdeck.protocol.forge.issues import find_issue, list_issues
from teamdeck.store.files import read_optional, replace_if_changed
from teamdeck.store.workspace import Workspace

log = logging.getLogger(__name__)

STATE_FILE = "catchup.json"
INTERVAL_S = 300.0
"""How often ``forge serve`` catches up (and once at its start)."""
_ISSUE_NUMBER = re.compile(r"/(?:issues|pulls)/(\d+)$")

JSON = dict[str, Any]


class ForgeReader(Protocol):
    """Gitea's REST API, read-only: each method returns Gitea's JSON (modules/structs)."""

    def issues_since(self, repo: str, since: str) -> list[JSON]:
        """Issues (not PRs) updated since ``since``, any state (``GET .../issues?type=issues&state=all&since=``)."""
        ...

    def pulls_since(self, repo: str, since: str) -> list[JSON]:
        """Pull requests updated since ``since``, any state."""
        ...

    def comments_since(self, repo: str, since: str) -> list[JSON]:
        """Comments on issues and PRs updated since ``since`` (``GET .../issues/comments?since=``)."""
        ...

    def issue(self, repo: str, number: int) -> JSON:
        """One issue or PR as an issue (``GET .../issues/{n}``); NotFound when it is gone."""
        ...

    def closed_by(self, repo: str, number: int) -> str | None:
        """Who last closed the issue, from its timeline; None when unknown."""
        ...

    def statuses(self, repo: str, sha: str) -> list[JSON]:
        """The commit statuses of ``sha`` (``GET .../commits/{sha}/statuses``)."""
        ...


@dataclass
class CatchUp:
    """What one catch-up did: one line per synthesized delivery that had an effect."""

    lines: list[str] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)


def _state_path(ws: Workspace) -> Path:
    return ws.forge_dir / STATE_FILE


def _moment(text: object) -> datetime | None:
    """An RFC 3339 time of Gitea's (any zone) or of teamdeck's log, else None."""
    try:
        found = datetime.fromisoformat(str(text))
    except ValueError:
        return None
    return found if found.tzinfo is not None and found.year > 1 else None


def _later(newest: datetime, text: object) -> datetime:
    found = _moment(text)
    return found if found is not None and found > newest else newest


def read_marks(ws: Workspace) -> dict[str, str]:
    """``forge/catchup.json``: repository → the newest ``updated_at`` seen."""
    data = read_optional(_state_path(ws))
    try:
        marks = json.loads(data) if data else {}
    except ValueError:
        log.warning("forge: %s is not JSON; catching up from the first delivery", STATE_FILE)
        return {}
    return {str(k): str(v) for k, v in marks.items()} if isinstance(marks, dict) else {}


def known_repos(ws: Workspace) -> list[str]:
    """The repositories teamdeck has issues of (as Gitea spells them)."""
    issues, _problems = list_issues(ws)
    return sorted({issue.repo for issue in issues}, key=str.lower)


def _start(ws: Workspace, repo: str) -> datetime | None:
    """Where the first catch-up of ``repo`` starts: the first delivery teamdeck recorded
    (by its clock) or the first issue of the repository it knows was opened (by Gitea's),
    whichever is earlier (the two clocks may differ; reading a change twice is harmless)."""
    records = read_deliveries(ws)
    issues, _problems = list_issues(ws)
    found = [_moment(records[0]["receivedAt"])] if records else []
    found += [_moment(issue.openedAt) for issue in issues if issue.repo.lower() == repo.lower()]
    moments = [moment for moment in found if moment is not None]
    return min(moments) if moments else None


def catch_up(ws: Workspace, reader: ForgeReader, repos: list[str] | None = None) -> CatchUp:
    """Read what changed since the last catch-up and receive it as deliveries.

    Raises:
        TeamdeckError: the reader failed (nothing after the failing read is applied; the
            mark is not moved, so the next catch-up reads it again).
    """
    done = CatchUp()
    marks = read_marks(ws)
    for repo in repos if repos is not None else known_repos(ws):
        since = _moment(marks.get(repo.lower())) or _start(ws, repo)
        if since is None:
            continue
        newest = _repo(ws, reader, repo, since, done)
        if newest > since:
            marks[repo.lower()] = newest.astimezone(UTC).isoformat()
            replace_if_changed(_state_path(ws), (json.dumps(marks, indent=2, sort_keys=True) + "\n").encode())
    return done


def _repo(ws: Workspace, reader: ForgeReader, repo: str, start: datetime, done: CatchUp) -> datetime:
    """Catch up one repository, its changes in the order they were made (by creation
    time: a comment made before an issue was assigned is seen before its assignment, as
    the webhooks would have had it); returns the newest ``updated_at`` read."""
    newest, since = start, start.isoformat()
    repository = {"full_name": repo}
    steps: list[tuple[datetime, int, Callable[[], None]]] = []

    def step(item: JSON, run: Callable[[], None]) -> None:
        nonlocal newest
        newest = _later(newest, item.get("updated_at"))
        steps.append((_moment(item.get("created_at")) or start, len(steps), run))

    def issue_step(gitea: JSON) -> Callable[[], None]:
        def run() -> None:
            for action, sender in _issue_actions(ws, reader, repo, gitea):
                body = {"action": action, "number": gitea["number"], "issue": gitea, "repository": repository}
                _deliver(ws, "issues", {**body, "sender": {"login": sender}}, done)

        return run

    def pull_step(pull: JSON) -> Callable[[], None]:
        def run() -> None:
            action = "opened" if pull.get("state") == "open" else "closed"
            merger = (pull.get("merged_by") or {}).get("login") if pull.get("merged") else None
            body = {"action": action, "number": pull["number"], "pull_request": pull, "repository": repository}
            _deliver(ws, "pull_request", {**body, "sender": {"login": merger or pull["user"]["login"]}}, done)
            if action == "opened":
                _failed_statuses(ws, reader, repo, pull, done)

        return run

    issues: dict[int, JSON] = {}

    def comment_step(comment: JSON, number: int) -> Callable[[], None]:
        def run() -> None:
            if number not in issues:
                try:
                    issues[number] = reader.issue(repo, number)
                except NotFound as err:  # deleted since: its comments have nothing left to act on
                    done.lines.append(f"comment {comment.get('id')} on #{number} skipped: {err}")
                    return
            issue = issues[number]
            body = {
                "action": "created",
                "issue": issue,
                "comment": comment,
                "repository": repository,
                "sender": comment["user"],
                "is_pull": issue.get("pull_request") is not None,
            }
            _deliver(ws, "issue_comment", body, done)

        return run

    for gitea in reader.issues_since(repo, since):
        step(gitea, issue_step(gitea))
    for pull in reader.pulls_since(repo, since):
        step(pull, pull_step(pull))
    for comment in reader.comments_since(repo, since):
        found = _ISSUE_NUMBER.search(str(comment.get("issue_url") or comment.get("pull_request_url") or ""))
        if found is not None:
            step(comment, comment_step(comment, int(found.group(1))))
    for _when, _order, run in sorted(steps, key=lambda s: (s[0], s[1])):
        run()
    return newest


def _issue_actions(ws: Workspace, reader: ForgeReader, repo: str, gitea: JSON) -> list[tuple[str, str]]:
    """The deliveries Gitea would have sent for this issue, with who acted."""
    creator = gitea["user"]["login"]
    closed = gitea.get("state") == "closed"
    known = find_issue(ws, repo, gitea["number"])
    if known is None:
        actions = [("opened", creator)]
        return [*actions, ("closed", reader.closed_by(repo, gitea["number"]) or creator)] if closed else actions
    if closed and known.state == "open":
        return [("closed", reader.closed_by(repo, gitea["number"]) or creator)]
    if not closed and known.state == "closed":
        return [("reopened", creator)]
    assignees = sorted(user["login"].lower() for user in gitea.get("assignees") or [])
    if assignees != sorted(login.lower() for login in known.assignees):
        return [("assigned" if assignees else "unassigned", creator)]
    return [("edited", creator)]


def _failed_statuses(ws: Workspace, reader: ForgeReader, repo: str, pull: JSON, done: CatchUp) -> None:
    sha = str((pull.get("head") or {}).get("sha") or "")
    if not sha:
        return
    for status in reader.statuses(repo, sha):
        if status.get("status", status.get("state")) in ("failure", "error"):
            body = {
                "sha": sha,
                "state": status.get("status", status.get("state")),
                "context": status.get("context", ""),
                "target_url": status.get("target_url"),
                "description": status.get("description"),
                "repository": {"full_name": repo},
                "sender": status.get("creator") or pull["user"],
            }
            _deliver(ws, "status", body, done)
            return


def _deliver(ws: Workspace, event: str, payload: JSON, done: CatchUp) -> None:
    """Receive one synthesized delivery (its id says it came from the catch-up)."""
    delivery = f"catch-up-{new_ulid(ws.clock())}"
    headers = {"X-Gitea-Delivery": delivery, "X-Gitea-Event": event, "X-Gitea-Event-Type": event}
    outcome = receive(ws, headers, json.dumps(payload).encode())
    done.outcomes.append(outcome)
    if outcome.outcome == "failed":
        raise TeamdeckError(f"catch-up: a {event} delivery failed: {outcome.detail}")
    if outcome.effects:
        action = payload.get("action") or ""
        done.lines.append(f"{event}{' ' + action if action else ''}: " + "; ".join(outcome.effects))
