"""Reading issue-driven teams' issues into the read model: the issues under ``forge/``
as a tree of :class:`~teamdeck.view.snapshot.issues.IssueView` rows, each parent
followed by its subs (``teamdeck forge issues`` and the TUI's Issues panel).
view/refresh/build.py reads the issues again whenever a file under
``forge/`` changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.issues import IssueView

if TYPE_CHECKING:
    from teamdeck.model.forge import ForgeIssue


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
