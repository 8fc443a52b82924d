"""What a comment does (seed 001 §15, §17): recorded on its issue once per comment id,
each @-mentioned agent told once per comment id (a redelivery, even under a new
delivery id, or the catch-up reading the same comment, tells nobody twice), and an
``Action Report`` by the issue's assignee ends what it was asked to do.

An Action Report is a comment whose first non-empty line, without Markdown marks, starts
with ``Action Report`` (``## Action Report``, ``**[Action Report]**``...). On a PR, it
reports on the issues the PR closes.
"""

from __future__ import annotations

import re

from teamdeck.model.forge import ForgeIssue, GiteaComment, GiteaPayload
from teamdeck.protocol.common.markdown import code_span, fenced
from teamdeck.protocol.forge import parse
from teamdeck.protocol.forge.context import RuleContext
from teamdeck.protocol.forge.issue_rules import sync_issue
from teamdeck.protocol.forge.issues import cut, find_issue
from teamdeck.protocol.forge.pull_rules import linked_issues

_MARKS = re.compile(r"^[\s#>*_\[\]`-]+")


def is_action_report(body: str) -> bool:
    """Whether a comment is an Action Report (see the module)."""
    first = next((line for line in body.splitlines() if line.strip()), "")
    return _MARKS.sub("", first).lower().startswith("action report")


def on_comment(ctx: RuleContext, payload: GiteaPayload) -> None:
    assert payload.issue is not None and payload.comment is not None
    gitea, comment = payload.issue, payload.comment
    if not gitea.is_pull:
        issue = sync_issue(ctx, gitea)
        body = cut(comment.body)
        record = {"by": comment.user.login, "body": body, "at": comment.created_at, "id": comment.id}
        once = f"comment:{comment.id}" if payload.action == "created" else None
        if ctx.record(issue, "issue.commented", record, once=once):
            ctx.effects.add(f"comment by {comment.user.login} on {issue.ref}")
    if payload.action != "created":
        return
    _mentions(ctx, payload)
    if is_action_report(comment.body):
        if gitea.is_pull:
            reported = linked_issues(ctx, gitea.body or "", gitea.number)
        else:
            found = find_issue(ctx.ws, ctx.repo, gitea.number)
            reported = [found] if found is not None else []
        for issue in reported:
            _reported(ctx, issue, comment)


def _mentions(ctx: RuleContext, payload: GiteaPayload) -> None:
    assert payload.issue is not None and payload.comment is not None
    gitea, comment = payload.issue, payload.comment
    what = "pull request" if gitea.is_pull else "issue"
    for login in parse.mentions_of(comment.body):
        agent = ctx.agents.get(login)
        if agent is None or login == comment.user.login.lower():
            continue
        ctx.message(
            agent,
            "mention",
            {
                "ref": f"{ctx.repo}#{gitea.number}",
                "repo": ctx.repo,
                "number": str(gitea.number),
                "title": code_span(gitea.title),
                "what": what,
                "by": comment.user.login,
                "comment": fenced(comment.body),
            },
            key=f"forge:comment:{comment.id}:{login}",
        )


def _reported(ctx: RuleContext, issue: ForgeIssue, comment: GiteaComment) -> None:
    """The assignee's Action Report ends its work item; an issue still ``working``
    waits for review (its PR's, or its creator's close)."""
    by = comment.user.login
    if by.lower() not in {login.lower() for login in issue.assignees}:
        ctx.effects.add(f"Action Report by {by} on {issue.ref} ignored: {by} is not its assignee")
        return
    ended = issue.work.kind if issue.work is not None else None
    report = {"by": by, "at": comment.created_at, "comment": comment.id, "ended": ended}
    if not ctx.record(issue, "issue.reported", {"report": report}, once=f"report:{comment.id}"):
        return
    ctx.effects.add(f"Action Report by {by} on {issue.ref}" + (f": {ended} ended" if ended else ""))
    if issue.status == "working":
        ctx.set_status(ctx.reload(issue), "review", f"Action Report by {by}")
