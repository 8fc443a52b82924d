"""What pull requests, reviews and CI do (seed 001 §14b): a PR that closes an issue puts
it in review and asks the reviewer, again after every push (``synchronized``, a new
head commit); a review comes back to the assignee; a merge makes the issue done; a
failed commit status or workflow run on a PR's head goes back to the assignee as a
``ci_failure`` with the failing check and its link.

The reviewer: the PR's requested reviewers who are agents; else the agents of the PR
author's team whose roster role is ``gate``; else those whose agent type names review.
"""

from __future__ import annotations

from collections.abc import Iterable

from teamdeck.clock import iso
from teamdeck.model.forge import ForgeIssue, GiteaPayload, GiteaPull
from teamdeck.protocol.common.markdown import code_span, fenced
from teamdeck.protocol.forge import parse
from teamdeck.protocol.forge.agents import Agent
from teamdeck.protocol.forge.context import Changes, RuleContext, issue_values
from teamdeck.protocol.forge.issue_rules import issues_of, message_key, round_check
from teamdeck.protocol.forge.issues import find_issue
from teamdeck.text import one_line

FAILED_STATES = frozenset({"failure", "error"})
"""Commit status states that send the work back (``pending`` and ``success`` do not)."""
URL_CHARS = 500
"""The longest link passed on (a check's log, a PR): quoted, on one line."""
FAILED_CONCLUSIONS = frozenset({"failure", "timed_out", "startup_failure"})
"""Workflow run conclusions that send the work back (``cancelled`` is someone's choice)."""


def linked_issues(ctx: RuleContext, body: str, number: int) -> list[ForgeIssue]:
    """The issues teamdeck knows that a PR body closes (``Closes #N``)."""
    found = (find_issue(ctx.ws, ctx.repo, n) for n in parse.closes_of(body))
    return [issue for issue in found if issue is not None and issue.number != number]


def _pull_values(issue: ForgeIssue, pull: GiteaPull) -> dict[str, str]:
    return {**issue_values(issue), "pull": str(pull.number), "branch": one_line(pull.head.ref, 100)}


def on_pull(ctx: RuleContext, action: str, pull: GiteaPull) -> None:
    merged = action == "closed" and pull.merged
    state = "merged" if merged else ("closed" if action == "closed" else "open")
    linked = {"number": pull.number, "head": pull.head.ref, "state": state, "url": pull.html_url}
    linked["sha"] = pull.head.sha or None
    issues = linked_issues(ctx, pull.body or "", pull.number)
    for issue in issues:
        before = issue.pull
        news = before is None or (before.number, before.sha, before.state) != (pull.number, linked["sha"], state)
        if before is None or before.model_dump(mode="json") != linked:
            ctx.record(issue, "issue.pull_linked", {"pull": linked})
            ctx.effects.add(f"issue {issue.ref} linked to PR #{pull.number} ({state})")
        if state == "open" and not issue.final and news:
            ctx.set_status(issue, "review", f"PR #{pull.number} {action}")
        elif state == "closed" and issue.status == "review":
            ctx.set_status(issue, "working", f"PR #{pull.number} closed without merging")
        elif merged:
            ctx.set_status(issue, "done", f"PR #{pull.number} merged by {ctx.sender}")
            for agent in _workers(ctx, issue, pull.user.login, skip=ctx.sender):
                ctx.message(
                    agent,
                    "merged",
                    {**_pull_values(issue, pull), "merged_by": ctx.sender},
                    key=message_key(issue, f"merged:{pull.number}:{agent.login}"),
                )
            round_check(ctx, ctx.reload(issue))
    if state == "open":
        _ask_reviewers(ctx, pull, issues)


def _ask_reviewers(ctx: RuleContext, pull: GiteaPull, issues: list[ForgeIssue]) -> None:
    """Seed 001 §14b ⑥/⑦: the reviewer is asked once per head commit of an open PR."""
    head = pull.head.sha or pull.updated_at or ""
    closes = ", ".join(f"#{issue.number} {code_span(issue.title)}" for issue in issues) or "no issue teamdeck knows"
    for agent in reviewers(ctx, pull):
        ctx.message(
            agent,
            "review_request",
            {
                "repo": ctx.repo,
                "pull": str(pull.number),
                "title": code_span(pull.title),
                "title_plain": one_line(pull.title, 80),
                "author": pull.user.login,
                "branch": code_span(pull.head.ref),
                "sha": head[:12] or "(unknown)",
                "url": code_span(pull.html_url, URL_CHARS) if pull.html_url else f"PR #{pull.number}",
                "closes": closes,
                "body": fenced(pull.body or "") if (pull.body or "").strip() else "(no description)",
            },
            key=f"forge:{ctx.repo.lower()}!{pull.number}:review:{head}:{agent.login}",
        )


def reviewers(ctx: RuleContext, pull: GiteaPull) -> list[Agent]:
    """Who reviews ``pull`` (see the module), never its author."""
    author = pull.user.login.lower()
    requested = [ctx.agents.get(user.login) for user in pull.requested_reviewers or []]
    chosen = [agent for agent in requested if agent is not None and agent.login != author]
    if chosen:
        return chosen
    opener = ctx.agents.get(author)
    team = [a for a in ctx.agents.all() if a.login != author and (opener is None or a.team == opener.team)]
    return [a for a in team if a.team_role == "gate"] or [a for a in team if "review" in a.role.lower()]


def _workers(ctx: RuleContext, issue: ForgeIssue, author: str, *, skip: str | None = None) -> Iterable[Agent]:
    """The agents doing ``issue``: its assignees, else the PR's author (never ``skip``)."""
    for login in issue.assignees or [author]:
        agent = ctx.agents.get(login)
        if agent is not None and login.lower() != (skip or "").lower():
            yield agent


def on_review(ctx: RuleContext, approved: bool, payload: GiteaPayload) -> None:
    pull = payload.pull_request
    assert pull is not None
    review_text = payload.review.content if payload.review is not None else ""
    review = fenced(review_text) if review_text.strip() else "(no review text)"
    # A review asking for changes counts an attempt: keyed by the delivery (a review
    # payload carries no id), so Gitea's redelivery of a review whose first delivery
    # crashed half-way counts it once.
    once = f"review:{ctx.delivery}" if ctx.delivery else None
    verdict = "approved" if approved else "changes_requested"
    for issue in linked_issues(ctx, pull.body or "", pull.number):
        ctx.record(issue, "issue.reviewed", {"review": verdict, "by": ctx.sender, "pull": pull.number}, once=once)
        values = {**_pull_values(issue, pull), "reviewer": ctx.sender, "review": review}
        if approved:
            ctx.effects.add(f"issue {issue.ref} review approved by {ctx.sender}")
            if not issue.final:
                ctx.set_status(issue, "review", f"PR #{pull.number} approved")
            for agent in _workers(ctx, issue, pull.user.login):
                ctx.message(agent, "review_approved", values)
            continue
        ctx.effects.add(f"issue {issue.ref} changes requested by {ctx.sender}")
        if not issue.final:
            ctx.set_status(issue, "working", f"changes requested on PR #{pull.number}")
            ctx.work(issue, "review_changes", f"PR #{pull.number}", pull.html_url)
        attempt = str(ctx.reload(issue).retries + 1)  # this review counted, once (a redelivery too)
        for agent in _workers(ctx, issue, pull.user.login):
            ctx.message(agent, "review_changes", {**values, "attempt": attempt})


def on_status(ctx: RuleContext, payload: GiteaPayload) -> None:
    """A commit status: a failed check on an open PR's head goes back to its assignee."""
    if payload.state not in FAILED_STATES:
        return
    check = one_line(payload.context or "(unnamed check)", 100)
    detail = one_line(payload.description or payload.state, 200)
    _ci_failed(ctx, payload.sha, check, detail, one_line(payload.target_url, URL_CHARS) if payload.target_url else None)


def on_workflow_run(ctx: RuleContext, payload: GiteaPayload) -> None:
    """A finished workflow run that failed: the same as a failed commit status."""
    run = payload.workflow_run
    if run is None or (run.conclusion or "") not in FAILED_CONCLUSIONS:
        return
    name = (payload.workflow.name if payload.workflow else "") or run.display_title or "workflow"
    check = one_line(f"{name} (run {run.id})", 100)
    url = one_line(run.html_url, URL_CHARS) if run.html_url else None
    _ci_failed(ctx, run.head_sha, check, one_line(f"conclusion {run.conclusion}", 100), url)


def _ci_failed(ctx: RuleContext, sha: str, check: str, detail: str, url: str | None) -> None:
    """Seed 001 §14b ⑤: once per head commit, each issue whose open PR has ``sha`` as
    head goes back to ``working`` and its assignee gets a ``ci_failure`` naming the first
    check that failed (Gitea Actions reports one failure as a commit status and as a
    workflow run: the commit is to be fixed once, whichever arrives first).

    The assignee is told first, then the issue's change and its ``ci:<sha>`` mark are
    recorded in one write: a crash between leaves the issue unmarked, so the redelivery
    tells again (the message is keyed: it only finishes the first) and records it; the
    mark never stands for a notice that is not in the inbox (F23)."""
    issues = [
        issue
        for issue in issues_of(ctx, ctx.repo)
        if sha and issue.pull is not None and issue.pull.state == "open" and issue.pull.sha == sha
    ]
    if not issues:
        ctx.effects.add(
            f"CI failure of {check} on {sha[:12] or '(no commit)'}: no open PR teamdeck knows has it as head"
        )
        return
    work = {"kind": "ci_failure", "since": iso(ctx.ws.clock()), "detail": check, "url": url}

    def sent_back(current: ForgeIssue | None) -> Changes:
        status = {"to": "working", "reason": f"CI failed: {check}", "problem": None}
        return [
            *([("issue.status_changed", status)] if _goes_back(current) else []),
            ("issue.work_given", {"work": work}),
        ]

    for issue in issues:
        once = f"ci:{sha}"
        assert issue.pull is not None
        if once in issue.notified:
            continue
        for agent in _workers(ctx, issue, issue.creator):
            ctx.message(
                agent,
                "ci_failure",
                {
                    **issue_values(issue),
                    "pull": str(issue.pull.number),
                    "branch": code_span(issue.pull.head),
                    "sha": sha[:12],
                    "check": code_span(check),
                    "check_plain": check,
                    "detail": code_span(detail),
                    "url": code_span(url, URL_CHARS) if url else "(no link given)",
                },
                key=message_key(issue, f"ci:{sha}:{agent.login}"),
            )
        if ctx.record_all(issue, sent_back, once=once, what="a CI failure"):
            ctx.effects.add(f"issue {issue.ref}: CI failure of {check} sent back")
            if _goes_back(issue):
                ctx.effects.add(f"issue {issue.ref} working")


def _goes_back(issue: ForgeIssue | None) -> bool:
    """Whether a CI failure changes ``issue``'s status to ``working`` (a final issue stays)."""
    return issue is not None and not issue.final and (issue.status, issue.problem) != ("working", None)
