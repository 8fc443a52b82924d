"""What an ``issues`` delivery does (seed 001 §11, §13, §14, §16, §17): the issue document
brought up to date, the discussion, the assignment with the executor's brief, the
close and what it releases, and the round review once every sub of a parent is final.
"""

from __future__ import annotations

from typing import Any, cast

from teamdeck.model.event import Event
from teamdeck.model.forge import ForgeIssue, GiteaIssue
from teamdeck.protocol.common.markdown import code_span, fenced
from teamdeck.protocol.forge import parse
from teamdeck.protocol.forge.agents import Agent
from teamdeck.protocol.forge.briefing import assigned_values
from teamdeck.protocol.forge.context import RuleContext, issue_values
from teamdeck.protocol.forge.issues import TITLE_CHARS, change_issue, cut, event, find_issue, issue_key, list_issues
from teamdeck.protocol.forge.round_review import open_round_review


def _fields(gitea: GiteaIssue) -> dict[str, Any]:
    """The issue fields a delivery carries, as issue.yaml holds them."""
    body = cut(gitea.body or "")
    return {
        "title": cut(gitea.title, TITLE_CHARS),
        "body": body,
        "url": gitea.html_url,
        "state": "closed" if gitea.state == "closed" else "open",
        "creator": gitea.user.login,
        "assignees": [user.login for user in gitea.assignees or []],
        "parent": parse.parent_of(gitea.title, body),
        "depends": parse.depends_of(body),
        "openedAt": gitea.created_at,
        "closedAt": gitea.closed_at,
    }


def sync_issue(ctx: RuleContext, gitea: GiteaIssue) -> ForgeIssue:
    """Create the issue document or bring its fields up to date with the delivery."""
    key = issue_key(ctx.repo, gitea.number)
    fields = _fields(gitea)

    def decide(current: ForgeIssue | None) -> list[Event]:
        if current is None:
            issue = {"repo": ctx.repo, "number": gitea.number, **fields, "status": "pending"}
            return [event(ctx.ws, "issue.created", {"issue": issue}, ctx.actor)]
        changed = {name: value for name, value in fields.items() if getattr(current, name) != value}
        return [event(ctx.ws, "issue.synced", {"fields": changed}, ctx.actor)] if changed else []

    exists = find_issue(ctx.ws, ctx.repo, gitea.number) is not None
    change = change_issue(ctx.ws, key, decide, action=f"record {ctx.repo}#{gitea.number}", create=not exists)
    if change.events:
        ctx.effects.add(f"issue {key} {'recorded' if not exists else 'updated'}")
    return cast(ForgeIssue, change.task)  # an ISSUE document validates as ForgeIssue


def on_issue(ctx: RuleContext, action: str, gitea: GiteaIssue) -> None:
    issue = sync_issue(ctx, gitea)
    if action == "opened" and not issue.assignees and issue.parent is None and issue.state == "open":
        _discussion(ctx, issue)
    if action in ("opened", "assigned", "edited") and issue.assignees and issue.state == "open":
        assign(ctx, issue)
    elif action == "closed":
        _closed(ctx, issue)
    elif action == "reopened":
        ctx.set_status(issue, "working" if issue.assignees else "pending", "reopened")
        if issue.assignees:
            assign(ctx, ctx.reload(issue))
    elif action == "unassigned" and not issue.assignees and issue.status in ("waiting", "working"):
        ctx.set_status(issue, "pending", "unassigned")


def _discussion(ctx: RuleContext, issue: ForgeIssue) -> None:
    """Seed 001 §13: every known agent but the opener is asked to discuss the issue (the
    agents of the opener's team when the opener is an agent: a workspace may supervise
    several teams, and only this one works on the issue)."""
    opener = ctx.agents.get(issue.creator)
    agents = [agent for agent in ctx.agents.all() if opener is None or agent.team == opener.team]
    for agent in agents:
        once = f"discussion:{agent.login}"
        if agent.login == issue.creator.lower() or once in issue.notified:
            continue
        ctx.message(
            agent, "discussion", _discussion_values(issue, agent, agents, issue.creator), key=message_key(issue, once)
        )
        ctx.record(issue, "issue.notified", {"key": once}, once=once)


def message_key(issue: ForgeIssue, what: str) -> str:
    """The send key of a one-time message about ``issue`` (the same from a webhook and
    from the catch-up)."""
    return f"forge:{issue.repo.lower()}#{issue.number}:{what}"


def _discussion_values(issue: ForgeIssue, agent: Agent, agents: list[Agent], coordinator: str) -> dict[str, str]:
    commented = [a.login for a in agents if a.login in {login.lower() for login in issue.commenters}]
    waiting = [a.login for a in agents if a.login not in commented and a.login != issue.creator.lower()]
    return {
        **issue_values(issue),
        "opener": issue.creator,
        "login": agent.login,
        "member": agent.member,
        "team": agent.team,
        "role": agent.role,
        "capabilities": f" What you can do: {code_span(agent.capabilities)}." if agent.capabilities else "",
        "short": issue.repo.partition("/")[2] or issue.repo,
        "coordinator": "@" + coordinator,
        "commented": f"commented: {', '.join(commented) or 'nobody yet'}; not yet: {', '.join(waiting) or 'nobody'}",
    }


def assign(ctx: RuleContext, issue: ForgeIssue, *, released: bool = False) -> None:
    """Give the work to each agent assignee once, or hold it while a dependency is open
    (``released``: called because a dependency closed)."""
    if issue.status not in ("pending", "waiting", "working"):
        return
    cycle = _cycle(ctx, issue)
    if cycle:
        path = " -> ".join(f"#{number}" for number in cycle)
        ctx.set_status(issue, "waiting", "depends cycle", problem=f"Depends: cycle {path}; break it to release it")
        return
    open_deps = [number for number in issue.depends if _is_open(ctx, issue.repo, number)]
    if open_deps:
        waits = ", ".join(f"#{number}" for number in open_deps)
        ctx.set_status(issue, "waiting", f"waits for {waits}", problem=None)
        return
    if issue.status in ("pending", "waiting"):
        ctx.set_status(issue, "working", "assigned", problem=None)
    if released:
        by = " and every issue it depends on is closed now"
    elif ctx.sender.lower() in {login.lower() for login in issue.assignees}:
        by = ""
    else:
        by = f" by {ctx.sender}"
    for login in issue.assignees:
        agent = ctx.agents.get(login)
        once = f"assigned:{login.lower()}"
        if agent is None or once in issue.notified:
            continue
        values = {**issue_values(issue), **assigned_values(ctx.ws, issue, by)}
        ctx.message(agent, "assigned", values, key=message_key(issue, once))
        ctx.record(issue, "issue.notified", {"key": once}, once=once)
        ctx.work(issue, "assigned")


def _is_open(ctx: RuleContext, repo: str, number: int) -> bool:
    """A dependency holds its dependant back while it is open (an issue teamdeck never saw does not)."""
    dep = find_issue(ctx.ws, repo, number)
    return dep is not None and dep.state == "open"


def _cycle(ctx: RuleContext, issue: ForgeIssue) -> list[int]:
    """The Depends: path from ``issue`` back to itself through open issues, if there is
    one (empty: none; a closed issue on the way breaks the cycle)."""
    stack: list[tuple[int, list[int]]] = [(number, [issue.number, number]) for number in issue.depends]
    seen: set[int] = set()
    while stack:
        number, path = stack.pop()
        if number == issue.number:
            return path
        if number in seen:
            continue
        seen.add(number)
        dep = find_issue(ctx.ws, issue.repo, number)
        if dep is not None and dep.state == "open":
            stack.extend((after, [*path, after]) for after in dep.depends)
    return []


def _closed(ctx: RuleContext, issue: ForgeIssue) -> None:
    """Seed 001 §11: tell the creator (once per close); release the dependants; maybe end the round."""
    if issue.status != "done":
        ctx.set_status(issue, "closed", f"closed by {ctx.sender}")
    if issue.closedBy != ctx.sender:
        ctx.record(issue, "issue.synced", {"fields": {"closedBy": ctx.sender}})
    creator = ctx.agents.get(issue.creator)
    if creator is not None and issue.creator.lower() != ctx.sender.lower():
        last = issue.lastComment
        ctx.message(
            creator,
            "issue_closed",
            {
                **issue_values(issue),
                "closed_by": ctx.sender,
                "closed_at": issue.closedAt or "an unknown time",
                "last_comment": f"by {last.by}:\n{fenced(last.body)}" if last else "(no comment seen)",
            },
            key=message_key(issue, f"closed:{issue.closedAt or ''}:{creator.login}"),
        )
    for dependant in issues_of(ctx, issue.repo):
        if issue.number in dependant.depends and dependant.status == "waiting" and dependant.state == "open":
            assign(ctx, dependant, released=True)
    round_check(ctx, issue)


def issues_of(ctx: RuleContext, repo: str) -> list[ForgeIssue]:
    issues, _problems = list_issues(ctx.ws)
    return [issue for issue in issues if issue.repo.lower() == repo.lower()]


def round_check(ctx: RuleContext, sub: ForgeIssue) -> None:
    """Seed 001 §16: once every sub of ``sub``'s parent is final, open its round review."""
    if sub.parent is None:
        return
    parent = find_issue(ctx.ws, sub.repo, sub.parent)
    if parent is None or parent.state != "open":
        return
    subs = [issue for issue in issues_of(ctx, sub.repo) if issue.parent == parent.number]
    numbers = sorted(issue.number for issue in subs)
    if not subs or not all(issue.final for issue in subs) or numbers == sorted(parent.reviewedSubs):
        return
    opened = open_round_review(ctx.ws, parent, subs, ctx.agents.get(parent.creator), actor=ctx.actor)
    ctx.effects.lines.extend(opened)
