"""What a Gitea delivery does (seed 001 §11-§17): the issue documents it changes and the
messages it puts in agents' inboxes.

| delivery | effect |
|---|---|
| issue opened, no assignee, no parent | discussion: every known agent of the opener's team (all, for a human opener) but the opener gets the discussion prompt |
| issue opened with an assignee, or assigned | the assignee gets the work once, with its Depends: issues' last comments; while one of them is open the issue is ``waiting`` |
| issue closed | its creator is told, unless it closed it or is no agent; issues waiting on it are released; its parent's round may be over |
| comment created | each @-mentioned agent but the commenter gets a mention (edited comments: no message) |
| PR opened / edited (``Closes #N``) | #N is ``review``, the PR linked |
| review rejected | #N back to ``working``, retries + 1, its assignee gets the changes requested |
| review approved | its assignee is told |
| PR merged | #N ``done``; its assignee is told unless it merged it; its parent's round may be over |
| every sub of a parent final | round review: a gate in the decision queue (protocol/forge/round_review.py) |

Every one-time message is recorded on the issue (``notified``), so a redelivery, or
Gitea's second delivery for an issue created with an assignee, sends nothing twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from teamdeck.model.event import Event
from teamdeck.model.forge import ForgeIssue, GiteaIssue, GiteaPayload, GiteaPull
from teamdeck.protocol.forge import parse
from teamdeck.protocol.forge.agents import Agent, Agents, known_agents
from teamdeck.protocol.forge.issues import TITLE_CHARS, change_issue, cut, event, find_issue, issue_key, list_issues
from teamdeck.protocol.forge.notify import send
from teamdeck.protocol.forge.round_review import open_round_review
from teamdeck.protocol.markdown import code_span, fenced
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line

HANDLED = {
    "issues": ("opened", "edited", "reopened", "closed", "assigned", "unassigned"),
    "issue_comment": ("created", "edited"),
    "pull_request": ("opened", "reopened", "edited", "synchronized", "closed"),
    "pull_request_approved": ("reviewed",),
    "pull_request_rejected": ("reviewed",),
}
"""The ``X-Gitea-Event`` values and actions that have rules; others are recorded and ignored."""


@dataclass
class Effects:
    """What one delivery did, one line per effect (recorded in deliveries.jsonl)."""

    lines: list[str] = field(default_factory=list)

    def add(self, line: str) -> None:
        self.lines.append(line)


@dataclass(frozen=True)
class _Context:
    ws: Workspace
    agents: Agents
    repo: str
    sender: str
    effects: Effects
    delivery: str = ""

    @property
    def actor(self) -> str:
        return f"gitea:{self.sender}"

    def message(self, agent: Agent, kind: str, values: dict[str, str], *, key: str | None = None) -> None:
        """Send ``kind`` to ``agent`` once: keyed by the delivery and recipient (or by
        ``key``), so a redelivery after a crash sends only what was not sent (F18)."""
        once = key or (f"forge:{self.delivery}:{kind}:{agent.member}" if self.delivery else None)
        sent = send(self.ws, agent, kind, values, key=once)
        self.effects.add(f"{kind} message to {agent.team}/{agent.member} ({sent.id})")


def handles(event_name: str, action: str) -> bool:
    """Whether a delivery of ``event_name`` with ``action`` has rules."""
    return action in HANDLED.get(event_name, ())


def apply_delivery(ws: Workspace, event_name: str, payload: GiteaPayload, *, delivery: str = "") -> Effects:
    """Apply the rules to one delivery (call :func:`handles` first); ``delivery`` (its
    id) keys the messages it sends.

    Raises:
        TeamdeckError: an issue or inbox could not be read or written (the effects
            before it stay; one-time messages are not sent twice when it is redelivered).
    """
    ctx = _Context(ws, known_agents(ws), payload.repository.full_name, payload.sender.login, Effects(), delivery)
    if event_name == "issues" and payload.issue is not None and not payload.issue.is_pull:
        _on_issue(ctx, payload.action, payload.issue)
    elif event_name == "issue_comment" and payload.issue is not None and payload.comment is not None:
        _on_comment(ctx, payload)
    elif event_name == "pull_request" and payload.pull_request is not None:
        _on_pull(ctx, payload.action, payload.pull_request)
    elif event_name in ("pull_request_approved", "pull_request_rejected") and payload.pull_request is not None:
        _on_review(ctx, event_name == "pull_request_approved", payload)
    return ctx.effects


# --- issues -----------------------------------------------------------------------------


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


def _sync(ctx: _Context, gitea: GiteaIssue) -> ForgeIssue:
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


def _record(ctx: _Context, issue: ForgeIssue, type_: str, payload: dict[str, Any], *, once: str | None = None) -> None:
    """Append one event to ``issue``; with ``once``, only if that key is not yet in its
    ``notified`` list, and the key is recorded with the event (in the same write), so a
    redelivery after a crash does not apply a state change twice (F18)."""
    key = issue_key(issue.repo, issue.number)

    def decide(current: ForgeIssue | None) -> list[Event]:
        if once is not None and current is not None and once in current.notified:
            return []
        events = [event(ctx.ws, type_, payload, ctx.actor)]
        if once is not None and type_ != "issue.notified":
            events.append(event(ctx.ws, "issue.notified", {"key": once}, ctx.actor))
        return events

    change_issue(ctx.ws, key, decide, action=f"record {type_} on {issue.ref}")


def _set_status(ctx: _Context, issue: ForgeIssue, status: str, reason: str, problem: str | None = None) -> None:
    if issue.status == status and issue.problem == problem:
        return
    _record(ctx, issue, "issue.status_changed", {"to": status, "reason": reason, "problem": problem})
    ctx.effects.add(f"issue {issue.ref} {status}" + (f" ({problem})" if problem else ""))


def _on_issue(ctx: _Context, action: str, gitea: GiteaIssue) -> None:
    issue = _sync(ctx, gitea)
    if action == "opened" and not issue.assignees and issue.parent is None and issue.state == "open":
        _discussion(ctx, issue)
    if action in ("opened", "assigned", "edited") and issue.assignees and issue.state == "open":
        _assign(ctx, issue)
    elif action == "closed":
        _closed(ctx, issue)
    elif action == "reopened":
        _set_status(ctx, issue, "working" if issue.assignees else "pending", "reopened")
        if issue.assignees:
            _assign(ctx, _reload(ctx, issue))
    elif action == "unassigned" and not issue.assignees and issue.status in ("waiting", "working"):
        _set_status(ctx, issue, "pending", "unassigned")


def _reload(ctx: _Context, issue: ForgeIssue) -> ForgeIssue:
    found = find_issue(ctx.ws, issue.repo, issue.number)
    return found if found is not None else issue


def _discussion(ctx: _Context, issue: ForgeIssue) -> None:
    """Seed 001 §13: every known agent but the opener is asked to discuss the issue (the
    agents of the opener's team when the opener is an agent: a workspace may supervise
    several teams, and only this one works on the issue)."""
    opener = ctx.agents.get(issue.creator)
    agents = [agent for agent in ctx.agents.all() if opener is None or agent.team == opener.team]
    coordinator = issue.creator
    for agent in agents:
        if agent.login == issue.creator.lower():
            continue
        once = f"discussion:{agent.login}"
        if once in issue.notified:
            continue
        ctx.message(agent, "discussion", _discussion_values(issue, agent, agents, coordinator))
        _record(ctx, issue, "issue.notified", {"key": once}, once=once)


def _discussion_values(issue: ForgeIssue, agent: Agent, agents: list[Agent], coordinator: str) -> dict[str, str]:
    commented = [a.login for a in agents if a.login in {login.lower() for login in issue.commenters}]
    waiting = [a.login for a in agents if a.login not in commented and a.login != issue.creator.lower()]
    return {
        **_issue_values(issue),
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


def _issue_values(issue: ForgeIssue) -> dict[str, str]:
    return {
        "ref": issue.ref,
        "repo": issue.repo,
        "number": str(issue.number),
        "title": code_span(issue.title),
        "title_plain": one_line(issue.title, 80),
        "body": fenced(issue.body) if issue.body.strip() else "(no description)",
    }


def _assign(ctx: _Context, issue: ForgeIssue, *, released: bool = False) -> None:
    """Give the work to each agent assignee once, or hold it while a dependency is open
    (``released``: called because a dependency closed)."""
    if issue.status not in ("pending", "waiting", "working"):
        return
    cycle = _cycle(ctx, issue)
    if cycle:
        path = " -> ".join(f"#{number}" for number in cycle)
        _set_status(ctx, issue, "waiting", "depends cycle", problem=f"Depends: cycle {path}; break it to release it")
        return
    open_deps = [number for number in issue.depends if _is_open(ctx, issue.repo, number)]
    if open_deps:
        waits = ", ".join(f"#{number}" for number in open_deps)
        _set_status(ctx, issue, "waiting", f"waits for {waits}", problem=None)
        return
    if issue.status in ("pending", "waiting"):
        _set_status(ctx, issue, "working", "assigned", problem=None)
    for login in issue.assignees:
        agent = ctx.agents.get(login)
        once = f"assigned:{login.lower()}"
        if agent is None or once in issue.notified:
            continue
        ctx.message(agent, "assigned", _assigned_values(ctx, issue, released))
        _record(ctx, issue, "issue.notified", {"key": once}, once=once)


def _assigned_values(ctx: _Context, issue: ForgeIssue, released: bool) -> dict[str, str]:
    priors = []
    for number in issue.depends:
        dep = find_issue(ctx.ws, issue.repo, number)
        if dep is None:
            priors.append(f"### #{number}\n(not seen by teamdeck: read it on Gitea)")
        elif dep.lastComment is None:
            priors.append(f"### #{number} {code_span(dep.title)} ({dep.status})\n(no comment seen)")
        else:
            priors.append(
                f"### #{number} {code_span(dep.title)} ({dep.status}), last comment by {dep.lastComment.by}\n"
                + fenced(dep.lastComment.body)
            )
    brief = "-".join(one_line(issue.title, 40).split("]")[-1].split()).lower() or "work"
    if released:
        by = " and every issue it depends on is closed now"
    elif ctx.sender.lower() in {login.lower() for login in issue.assignees}:
        by = ""
    else:
        by = f" by {ctx.sender}"
    return {
        **_issue_values(issue),
        "by": by,
        "parent": f"\nIts parent is #{issue.parent}: keep your work aligned with the parent's goal.\n"
        if issue.parent
        else "",
        "parent_number": str(issue.parent or issue.number),
        "prior": "\n\n".join(priors) or "(none: it depends on no issue)",
        "branch": f"feat/{issue.number}-{_safe_branch(brief)}",
    }


def _safe_branch(text: str) -> str:
    kept = "".join(char if char.isascii() and (char.isalnum() or char in "-_.") else "-" for char in text)
    return "-".join(part for part in kept.split("-") if part)[:40] or "work"


def _is_open(ctx: _Context, repo: str, number: int) -> bool:
    """A dependency holds its dependant back while it is open (an issue teamdeck never saw does not)."""
    dep = find_issue(ctx.ws, repo, number)
    return dep is not None and dep.state == "open"


def _cycle(ctx: _Context, issue: ForgeIssue) -> list[int]:
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


def _closed(ctx: _Context, issue: ForgeIssue) -> None:
    """Seed 001 §11: tell the creator; release the dependants; maybe end the round."""
    if issue.status != "done":
        _set_status(ctx, issue, "closed", f"closed by {ctx.sender}")
    if issue.closedBy != ctx.sender:
        _record(ctx, issue, "issue.synced", {"fields": {"closedBy": ctx.sender}})
    creator = ctx.agents.get(issue.creator)
    if creator is not None and issue.creator.lower() != ctx.sender.lower():
        last = issue.lastComment
        ctx.message(
            creator,
            "issue_closed",
            {
                **_issue_values(issue),
                "closed_by": ctx.sender,
                "closed_at": issue.closedAt or "an unknown time",
                "last_comment": f"by {last.by}:\n{fenced(last.body)}" if last else "(no comment seen)",
            },
        )
    for dependant in _issues_of(ctx, issue.repo):
        if issue.number in dependant.depends and dependant.status == "waiting" and dependant.state == "open":
            _assign(ctx, dependant, released=True)
    _round_check(ctx, issue)


def _issues_of(ctx: _Context, repo: str) -> list[ForgeIssue]:
    issues, _problems = list_issues(ctx.ws)
    return [issue for issue in issues if issue.repo.lower() == repo.lower()]


def _round_check(ctx: _Context, sub: ForgeIssue) -> None:
    """Seed 001 §16: once every sub of ``sub``'s parent is final, open its round review."""
    if sub.parent is None:
        return
    parent = find_issue(ctx.ws, sub.repo, sub.parent)
    if parent is None or parent.state != "open":
        return
    subs = [issue for issue in _issues_of(ctx, sub.repo) if issue.parent == parent.number]
    numbers = sorted(issue.number for issue in subs)
    if not subs or not all(issue.final for issue in subs) or numbers == sorted(parent.reviewedSubs):
        return
    opened = open_round_review(ctx.ws, parent, subs, ctx.agents.get(parent.creator), actor=ctx.actor)
    ctx.effects.lines.extend(opened)


# --- comments ---------------------------------------------------------------------------


def _on_comment(ctx: _Context, payload: GiteaPayload) -> None:
    assert payload.issue is not None and payload.comment is not None
    gitea, comment = payload.issue, payload.comment
    if not gitea.is_pull:
        issue = _sync(ctx, gitea)
        body = cut(comment.body)
        _record(ctx, issue, "issue.commented", {"by": comment.user.login, "body": body, "at": comment.created_at})
        ctx.effects.add(f"comment by {comment.user.login} on {issue.ref}")
    if payload.action != "created":
        return
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


# --- pull requests and reviews ------------------------------------------------------------


def _linked(ctx: _Context, pull: GiteaPull) -> list[ForgeIssue]:
    """The issues teamdeck knows that the PR's body closes."""
    found = (find_issue(ctx.ws, ctx.repo, number) for number in parse.closes_of(pull.body or ""))
    return [issue for issue in found if issue is not None and issue.number != pull.number]


def _pull_values(issue: ForgeIssue, pull: GiteaPull) -> dict[str, str]:
    return {**_issue_values(issue), "pull": str(pull.number), "branch": one_line(pull.head.ref, 100)}


def _on_pull(ctx: _Context, action: str, pull: GiteaPull) -> None:
    merged = action == "closed" and pull.merged
    state = "merged" if merged else ("closed" if action == "closed" else "open")
    linked = {"number": pull.number, "head": pull.head.ref, "state": state, "url": pull.html_url}
    for issue in _linked(ctx, pull):
        if issue.pull is None or issue.pull.model_dump(mode="json") != linked:
            _record(ctx, issue, "issue.pull_linked", {"pull": linked})
            ctx.effects.add(f"issue {issue.ref} linked to PR #{pull.number} ({state})")
        if state == "open" and not issue.final:
            _set_status(ctx, issue, "review", f"PR #{pull.number} {action}")
        elif state == "closed" and issue.status == "review":
            _set_status(ctx, issue, "working", f"PR #{pull.number} closed without merging")
        elif merged:
            _set_status(ctx, issue, "done", f"PR #{pull.number} merged by {ctx.sender}")
            for agent in _workers(ctx, issue, pull, skip=ctx.sender):
                ctx.message(agent, "merged", {**_pull_values(issue, pull), "merged_by": ctx.sender})
            _round_check(ctx, _reload(ctx, issue))


def _workers(ctx: _Context, issue: ForgeIssue, pull: GiteaPull, *, skip: str | None = None) -> Iterable[Agent]:
    """The agents doing ``issue``: its assignees, else the PR's author (never ``skip``)."""
    logins = issue.assignees or [pull.user.login]
    for login in logins:
        agent = ctx.agents.get(login)
        if agent is not None and login.lower() != (skip or "").lower():
            yield agent


def _on_review(ctx: _Context, approved: bool, payload: GiteaPayload) -> None:
    pull = payload.pull_request
    assert pull is not None
    review_text = payload.review.content if payload.review is not None else ""
    review = fenced(review_text) if review_text.strip() else "(no review text)"
    # A review asking for changes counts an attempt: keyed by the delivery, so Gitea's
    # redelivery of a review whose first delivery crashed half-way counts it once.
    once = f"review:{ctx.delivery}" if ctx.delivery else None
    for issue in _linked(ctx, pull):
        if approved:
            _record(
                ctx, issue, "issue.reviewed", {"review": "approved", "by": ctx.sender, "pull": pull.number}, once=once
            )
            ctx.effects.add(f"issue {issue.ref} review approved by {ctx.sender}")
            if not issue.final:
                _set_status(ctx, issue, "review", f"PR #{pull.number} approved")
            for agent in _workers(ctx, issue, pull):
                ctx.message(
                    agent, "review_approved", {**_pull_values(issue, pull), "reviewer": ctx.sender, "review": review}
                )
            continue
        _record(
            ctx,
            issue,
            "issue.reviewed",
            {"review": "changes_requested", "by": ctx.sender, "pull": pull.number},
            once=once,
        )
        ctx.effects.add(f"issue {issue.ref} changes requested by {ctx.sender}")
        if not issue.final:
            _set_status(ctx, issue, "working", f"changes requested on PR #{pull.number}")
        attempt = str(_reload(ctx, issue).retries + 1)  # this review counted, once (a redelivery too)
        for agent in _workers(ctx, issue, pull):
            ctx.message(
                agent,
                "review_changes",
                {**_pull_values(issue, pull), "reviewer": ctx.sender, "review": review, "attempt": attempt},
            )
