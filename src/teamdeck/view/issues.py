"""Issue-driven teams in the read model: the issues under ``forge/`` as a tree, each
parent followed by its subs (``teamdeck forge issues`` and the TUI's Issues panel).

A row is frozen for a snapshot and keeps text raw, as the rest of the snapshot does:
fronts sanitise it. view/build.py reads the issues again whenever a file under
``forge/`` changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from teamdeck.store.workspace import Workspace

if TYPE_CHECKING:
    from teamdeck.model.forge import ForgeIssue


@dataclass(frozen=True)
class IssueView:
    """One issue as a row of the tree.

    Attributes:
        repo, number, title, state, status, creator, assignees, parent, depends: from issue.yaml.
        depth: 0 for a parent (or an issue whose parent teamdeck has not seen), 1 for a sub.
        pull: ``#104 open`` (None: no PR closes it).
        branch: the PR's head branch.
        review: ``approved`` / ``changes_requested`` (None: not reviewed).
        retries: how often changes were requested.
        waiting_on: its open ``Depends:`` issues.
        problem: why it cannot proceed (a Depends: cycle).
        rounds: round reviews opened (parents); ``round_task`` holds the last one's gate.
        outcome: the last round's decision.
        updated_at: issue.yaml's updatedAt.
        commented: who commented (first comment first).
        silent: agents asked to discuss it who have not commented yet.
        work: what its assignee is asked to do until its Action Report (``ci_failure: CI / test``).
        reported: who reported last, and when (``zhangfei-dev at 2026-...``).
        phase: where a parent issue is (seed 001 §14b.2): ``discussion`` (no sub yet),
            ``executing`` (a sub is not final), ``round review`` (its gate waits),
            ``new round`` / ``achieved`` (the last round's decision), ``closed``;
            None for a sub or an issue worked on without subs.
    """

    repo: str
    number: int
    title: str
    state: str
    status: str
    creator: str
    depth: int
    assignees: tuple[str, ...] = ()
    parent: int | None = None
    depends: tuple[int, ...] = ()
    waiting_on: tuple[int, ...] = ()
    pull: str | None = None
    branch: str | None = None
    review: str | None = None
    retries: int = 0
    problem: str | None = None
    rounds: int = 0
    round_task: str | None = None
    outcome: str | None = None
    updated_at: str = ""
    phase: str | None = None
    commented: tuple[str, ...] = ()
    silent: tuple[str, ...] = ()
    work: str | None = None
    reported: str | None = None

    @property
    def ref(self) -> str:
        return f"{self.repo}#{self.number}"

    @property
    def shown_status(self) -> str:
        """The phase of a parent, else the status."""
        return self.phase or self.status

    def to_json(self) -> dict[str, Any]:
        """The row for ``--json``."""
        return {
            "repo": self.repo,
            "number": self.number,
            "title": self.title,
            "state": self.state,
            "status": self.status,
            "creator": self.creator,
            "depth": self.depth,
            "assignees": list(self.assignees),
            "parent": self.parent,
            "depends": list(self.depends),
            "waitingOn": list(self.waiting_on),
            "pull": self.pull,
            "branch": self.branch,
            "review": self.review,
            "retries": self.retries,
            "problem": self.problem,
            "rounds": self.rounds,
            "roundTask": self.round_task,
            "outcome": self.outcome,
            "phase": self.phase,
            "commented": list(self.commented),
            "silent": list(self.silent),
            "work": self.work,
            "reported": self.reported,
        }


def _phase(issue: ForgeIssue, subs: list[ForgeIssue]) -> str | None:
    if issue.parent is not None or (not subs and issue.assignees):
        return None
    if issue.state == "closed":
        return "closed"
    if not subs:
        return "discussion"
    if (
        issue.roundTask is not None
        and issue.outcome is None
        and sorted(s.number for s in subs) == sorted(issue.reviewedSubs)
    ):
        return "round review"
    if not all(sub.final for sub in subs):
        return "executing"
    return {"achieved": "achieved", "new-round": "new round"}.get(issue.outcome or "", "executing")


def _row(
    issue: ForgeIssue, depth: int, open_numbers: set[tuple[str, int]], subs: list[ForgeIssue] | None = None
) -> IssueView:
    return IssueView(
        repo=issue.repo,
        number=issue.number,
        title=issue.title,
        state=issue.state,
        status=issue.status,
        creator=issue.creator,
        depth=depth,
        assignees=tuple(issue.assignees),
        parent=issue.parent,
        depends=tuple(issue.depends),
        waiting_on=tuple(number for number in issue.depends if (issue.repo.lower(), number) in open_numbers),
        pull=f"#{issue.pull.number} {issue.pull.state}" if issue.pull else None,
        branch=issue.pull.head if issue.pull else None,
        review=issue.review,
        retries=issue.retries,
        problem=issue.problem,
        rounds=issue.rounds,
        round_task=issue.roundTask,
        outcome=issue.outcome,
        updated_at=issue.updatedAt,
        phase=_phase(issue, subs or []) if depth == 0 else None,
        commented=tuple(issue.commenters),
        silent=_silent(issue),
        work=(f"{issue.work.kind}: {issue.work.detail}" if issue.work.detail else issue.work.kind)
        if issue.work
        else None,
        reported=(f"{issue.report.by}" + (f" at {issue.report.at}" if issue.report.at else ""))
        if issue.report
        else None,
    )


def _silent(issue: ForgeIssue) -> tuple[str, ...]:
    """The agents asked to discuss ``issue`` (its ``discussion:<login>`` notifications)
    that have not commented on it."""
    spoke = {login.lower() for login in issue.commenters}
    asked = [key.partition(":")[2] for key in issue.notified if key.startswith("discussion:")]
    return tuple(login for login in asked if login not in spoke)


def issue_tree(issues: list[ForgeIssue]) -> tuple[IssueView, ...]:
    """Parents (repository, then number order), each followed by its subs in number order."""
    ordered = sorted(issues, key=lambda issue: (issue.repo.lower(), issue.number))
    known = {(issue.repo.lower(), issue.number) for issue in ordered}
    open_numbers = {(issue.repo.lower(), issue.number) for issue in ordered if issue.state == "open"}
    subs: dict[tuple[str, int], list[ForgeIssue]] = {}
    tops: list[ForgeIssue] = []
    for issue in ordered:
        parent = (issue.repo.lower(), issue.parent) if issue.parent is not None else None
        if parent is not None and parent in known and parent != (issue.repo.lower(), issue.number):
            subs.setdefault(parent, []).append(issue)
        else:
            tops.append(issue)
    rows: list[IssueView] = []
    for top in tops:
        children = subs.get((top.repo.lower(), top.number), [])
        rows.append(_row(top, 0, open_numbers, children))
        rows.extend(_row(sub, 1, open_numbers) for sub in children)
    return tuple(rows)


def read_issue_tree(ws: Workspace) -> tuple[tuple[IssueView, ...], tuple[str, ...]]:
    """The tree of every issue under ``forge/`` and one line per issue that could not be read."""
    if not ws.forge_dir.exists():  # no issue-driven team here: its models are not even imported
        return (), ()
    from teamdeck.protocol.forge.issues import list_issues

    issues, problems = list_issues(ws)
    return issue_tree(issues), tuple(problems)
