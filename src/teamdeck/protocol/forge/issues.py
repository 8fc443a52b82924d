"""The issue documents: ``forge/<owner>__<repo>/issues/<n>/issue.yaml`` + ``events.jsonl``.

An issue is one more :class:`~teamdeck.protocol.task.taskfile.DocumentKind`: every change is
an ``issue.*`` event appended (fsync) before issue.yaml is replaced, under its lock,
and a crash in between is repaired by the next command (F12), exactly like tasks and
plans. Its id (the *key*) is ``<owner>__<repo>/<n>``, lowercased, each part checked
against the id allow-list before it becomes a path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from teamdeck.errors import TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.forge import FINAL_STATUSES, ForgeIssue
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.task.replay import DocumentFold
from teamdeck.protocol.task.taskfile import DocumentKind, TaskChange, load_document, read_events, transact
from teamdeck.store.files import list_entries
from teamdeck.store.paths import ID_RE, check_id
from teamdeck.store.workspace import Workspace

ISSUES = DocumentFold("issue", lists=())
"""Issues: issue.yaml is the fold of its events.jsonl."""

ISSUE = DocumentKind(ISSUES, ForgeIssue, Workspace.forge_issue_file, Workspace.forge_issue_log)

TEXT_CHARS = 8_000
"""The longest issue body or comment kept (the rest is cut, marked): one event line
stays well under the event log's 64 KiB record limit even in 4-byte UTF-8."""
TITLE_CHARS = 500


def cut(text: str, limit: int = TEXT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying so."""
    return (
        text if len(text) <= limit else text[:limit] + f"\n[... cut by teamdeck: {len(text) - limit:,} more characters]"
    )


def repo_key(repo: str) -> str:
    """``acme/quant`` → ``acme__quant`` (Gitea names are case-insensitive).

    Raises:
        InvalidId: the result is not a safe path part.
    """
    owner, _, name = repo.partition("/")
    return check_id(f"{owner}__{name}".lower(), "repository key")


def issue_key(repo: str, number: int) -> str:
    """The document id of issue ``number`` of ``repo``: ``acme__quant/101``."""
    return f"{repo_key(repo)}/{number}"


# --- reducers -------------------------------------------------------------------------


@ISSUES.reducer("issue.synced")
def _synced(issue: dict[str, Any], event: Event) -> bool:
    changed = {name: value for name, value in event.payload["fields"].items() if issue.get(name) != value}
    issue.update(changed)
    return bool(changed)


@ISSUES.reducer("issue.status_changed")
def _status_changed(issue: dict[str, Any], event: Event) -> bool:
    issue["status"] = event.payload["to"]
    if event.payload["to"] in FINAL_STATUSES:
        issue["work"] = None  # a done or closed issue asks nothing more of its assignee
    if "problem" in event.payload:
        issue["problem"] = event.payload["problem"]
    return True


RECENT_COMMENTS = 5
"""How many of an issue's last comments issue.yaml keeps (the executor's context)."""


@ISSUES.reducer("issue.commented")
def _commented(issue: dict[str, Any], event: Event) -> bool:
    by = event.payload["by"]
    if by not in issue.get("commenters", []):
        issue["commenters"] = [*issue.get("commenters", []), by]
    comment = {"by": by, "body": event.payload["body"], "at": event.payload.get("at")}
    if event.payload.get("id") is not None:
        comment["id"] = event.payload["id"]
    issue["lastComment"] = comment
    kept = [c for c in issue.get("recentComments", []) if comment.get("id") is None or c.get("id") != comment["id"]]
    issue["recentComments"] = [*kept, dict(comment)][-RECENT_COMMENTS:]  # a copy: YAML would write an alias
    return True


@ISSUES.reducer("issue.work_given")
def _work_given(issue: dict[str, Any], event: Event) -> bool:
    issue["work"] = dict(event.payload["work"])
    return True


@ISSUES.reducer("issue.reported")
def _reported(issue: dict[str, Any], event: Event) -> bool:
    issue["report"] = dict(event.payload["report"])
    issue["work"] = None
    return True


@ISSUES.reducer("issue.notified")
def _notified(issue: dict[str, Any], event: Event) -> bool:
    key = event.payload["key"]
    if key in issue.get("notified", []):
        return False
    issue["notified"] = [*issue.get("notified", []), key]
    return True


@ISSUES.reducer("issue.pull_linked")
def _pull_linked(issue: dict[str, Any], event: Event) -> bool:
    issue["pull"] = dict(event.payload["pull"])
    return True


@ISSUES.reducer("issue.reviewed")
def _reviewed(issue: dict[str, Any], event: Event) -> bool:
    issue["review"] = event.payload["review"]
    if event.payload["review"] == "changes_requested":
        issue["retries"] = int(issue.get("retries", 0)) + 1
    return True


@ISSUES.reducer("issue.round_opened")
def _round_opened(issue: dict[str, Any], event: Event) -> bool:
    issue.update(
        rounds=event.payload["round"],
        reviewedSubs=list(event.payload["subs"]),
        roundTask=event.payload["task"],
        outcome=None,
    )
    return True


@ISSUES.reducer("issue.round_decided")
def _round_decided(issue: dict[str, Any], event: Event) -> bool:
    issue["outcome"] = event.payload["outcome"]
    return True


# --- reading and changing ---------------------------------------------------------------


def load_issue(ws: Workspace, key: str) -> ForgeIssue:
    """issue.yaml with any unapplied events folded in (nothing is written).

    Raises:
        NotFound: no such issue.
        InvalidFile: issue.yaml is not a valid issue.
    """
    return cast(ForgeIssue, load_document(ws, key, ISSUE))


def find_issue(ws: Workspace, repo: str, number: int) -> ForgeIssue | None:
    """Issue ``number`` of ``repo`` if teamdeck has seen it (an unreadable one counts as unseen)."""
    key = issue_key(repo, number)
    if not (ws.forge_issue_file(key).exists() or ws.forge_issue_log(key).exists()):
        return None
    try:
        return load_issue(ws, key)
    except TeamdeckError:
        return None


def issue_events(ws: Workspace, key: str) -> list[Event]:
    """The issue's events, in order."""
    return read_events(ws, key, ISSUE)


IssueDecide = Callable[[ForgeIssue | None], list[Event]]


def change_issue(ws: Workspace, key: str, decide: IssueDecide, *, action: str, create: bool = False) -> TaskChange:
    """:func:`~teamdeck.protocol.task.taskfile.transact` for an issue (``change.task`` is the ForgeIssue)."""
    return transact(ws, key, decide, action=action, create=create, kind=ISSUE)


def event(ws: Workspace, type_: str, payload: dict[str, Any], actor: str) -> Event:
    """An ``issue.*`` event by ``actor`` (``gitea:<login>`` for what a delivery reports)."""
    return new_event(ws, type_, payload, actor=actor)


def issue_keys(ws: Workspace) -> list[str]:
    """Every issue key under ``forge/`` (repository, then number order)."""
    keys: list[str] = []
    for repo in list_entries(ws.forge_dir):
        if not (repo.is_dir and ID_RE.fullmatch(repo.name)):
            continue
        numbers = [
            entry.name
            for entry in list_entries(repo.path / "issues")
            if entry.is_dir and entry.name.isdigit() and ID_RE.fullmatch(entry.name)
        ]
        keys.extend(f"{repo.name}/{number}" for number in sorted(numbers, key=int))
    return keys


def list_issues(ws: Workspace) -> tuple[list[ForgeIssue], list[str]]:
    """Every issue (repository, then number order) and one line per issue that could not be read."""
    issues, problems = [], []
    for key in issue_keys(ws):
        try:
            issues.append(load_issue(ws, key))
        except TeamdeckError as err:
            problems.append(str(err))
    return issues, problems
