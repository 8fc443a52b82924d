"""Work on Gitea an agent leaves untouched, on the same schedule as a task delegation
(protocol/coordination/stall_scan.py): an issue ``working`` whose work item (the assignment, a CI
failure, changes requested) the assignee has not acted on, and a discussion the agent
was asked to join and has not commented on (seed 001 §13).

Its **activity** is what the forge loop recorded of the agent on the issue: every event
a delivery (or the catch-up) made with the agent as its sender, ``gitea:<login>`` (a
comment, a PR opened or updated, an Action Report, an edit), besides the moment the
work was given (or the discussion prompt sent) and a person's decision on an earlier
stall.

Once the first nudge is due, a teamdeck task follows the issue,
``stall-<owner>__<repo>-<n>`` (its ``forgeIssue`` names the issue; each stalled agent
is a worker on it): it holds the ``member.nudged`` events and the ``member-stalled``
decision, so the nudges, the decision queue, the roster and ``status`` treat Gitea work
exactly as a task's. Its workers owe no report (protocol/coordination/stall_scan.py
``owing_workers``): what is owed is read from the issue each time.

The decision (protocol/effects/stall_gates.py): approve with no note nudges again; approve
naming a member reassigns the issue (:func:`reassign_issue`: on Gitea through
forge/outbox.jsonl, and at once here through the forge rules' own assignment, which
sends the new assignee its brief); reject gives up: teamdeck stops waiting for that
agent on that issue (the issue is left as it is). A discussion is everyone's: it is
not reassigned.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from teamdeck.clock import iso, parse_iso
from teamdeck.errors import Refused, TeamdeckError
from teamdeck.model.event import Event
from teamdeck.model.forge import ForgeIssue
from teamdeck.model.settings import AutoworkSettings
from teamdeck.model.task import Gate, Task, Worker
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.coordination.stall_scan import STALL_GATE, Stall, schedule
from teamdeck.protocol.forge.agents import Agent, Agents, known_agents
from teamdeck.protocol.forge.context import Effects, RuleContext
from teamdeck.protocol.forge.issue_rules import assign
from teamdeck.protocol.forge.issues import issue_events, issue_key, issue_keys, load_issue, repo_key
from teamdeck.protocol.forge.outbox import queue_post
from teamdeck.protocol.task.lifecycle import TERMINAL
from teamdeck.protocol.task.taskfile import load_task, read_events, transact
from teamdeck.store.files import FileState, file_states
from teamdeck.store.paths import ID_RE, check_id
from teamdeck.store.workspace import Workspace


def holder_id(repo: str, number: int, generation: int = 1) -> str:
    """``stall-acme__quant-201``: the task that follows issue ``number`` once it stalls (a
    digest of the repository when that is too long for an id); ``-2``, ``-3``... after it
    for an issue reopened once its first follower was retired."""
    suffix = f"-{generation}" if generation > 1 else ""
    wanted = f"stall-{repo_key(repo)}-{number}{suffix}"
    if ID_RE.fullmatch(wanted):
        return wanted
    digest = hashlib.sha256(repo.lower().encode()).hexdigest()[:12]
    return check_id(f"stall-{digest}-{number}{suffix}", "task id")


def forge_issue_of(task: Task) -> str | None:
    """The issue key a task follows (``acme__quant/201``), or None for an ordinary task."""
    key = getattr(task, "forgeIssue", None)
    return key if isinstance(key, str) and task.id.startswith("stall-") else None


@dataclass
class _Read:
    """An issue as last read, with the files' states it was read at (and its events once
    they were needed)."""

    states: dict[str, FileState]
    issue: ForgeIssue
    events: list[Event] | None = None


_READ: dict[tuple[Path, str], _Read] = {}
"""What :func:`_read` last read of each issue: the automatic step looks at every issue
every few seconds, and most (closed ones above all) have not changed since."""
MAX_READ = 8192


def _read(ws: Workspace, key: str) -> _Read | None:
    """The issue ``key`` (None: unreadable), parsed again only when its issue.yaml or
    events.jsonl changed (their mtime, size and inode)."""
    places = (ws.forge_issue_file(key), ws.forge_issue_log(key))
    states = file_states(places)
    known = _READ.get((ws.root, key))
    if known is not None and known.states == states:
        return known
    try:
        read = _Read(states, load_issue(ws, key))
    except TeamdeckError:
        return None
    if len(_READ) >= MAX_READ:
        _READ.clear()
    _READ[(ws.root, key)] = read
    return read


@dataclass(frozen=True)
class Following:
    """The task following an issue: its id, the task once made, and its events (nudges)."""

    task_id: str
    task: Task | None
    events: list[Event]


def owed_forge_work(ws: Workspace, settings: AutoworkSettings, now: datetime) -> list[Stall]:
    """Every piece of Gitea work owed by a known agent, stalled or not yet (repository,
    issue, then login order); unreadable issues are skipped (``validate`` says why)."""
    agents: Agents | None = None
    found: list[Stall] = []
    for key in issue_keys(ws):
        read = _read(ws, key)
        owing = _owing_logins(read.issue) if read is not None else []
        if read is None or not owing:
            continue
        issue = read.issue
        agents = agents if agents is not None else known_agents(ws)
        if read.events is None:
            read.events = issue_events(ws, key)
        events = read.events
        holder_task_id, holder = _holder(ws, issue)
        following = Following(holder_task_id, holder, read_events(ws, holder.id) if holder is not None else [])
        for login, kind, started in owing:
            agent = agents.get(login)
            start = started or _discussion_sent(events, login)
            if agent is None or start is None:
                continue
            stall = _stall_of(issue, agent, kind, start, events, following, settings, now)
            if stall is not None:
                found.append(stall)
    return found


def _owing_logins(issue: ForgeIssue) -> list[tuple[str, str, datetime | None]]:
    """(login, kind, when the work was given: None for a discussion, read from its prompt's event)."""
    if issue.state != "open":
        return []
    if issue.status == "working" and issue.work is not None:
        since = parse_iso(issue.work.since)
        return [(login.lower(), "issue", since) for login in issue.assignees]
    if issue.status == "pending" and not issue.assignees and issue.parent is None:
        commented = {login.lower() for login in issue.commenters}
        asked = [key.partition(":")[2] for key in issue.notified if key.startswith("discussion:")]
        return [(login, "discussion", None) for login in asked if login not in commented]
    return []


def _discussion_sent(events: list[Event], login: str) -> datetime | None:
    """When the discussion prompt to ``login`` was recorded."""
    key = f"discussion:{login}"
    return next((parse_iso(e.ts) for e in events if e.type == "issue.notified" and e.payload.get("key") == key), None)


def _holder(ws: Workspace, issue: ForgeIssue) -> tuple[str, Task | None]:
    """The id of the task following the issue now, and the task once it is made: the
    first that is not retired (canceled when its issue was final), else the next id."""
    for generation in range(1, MAX_GENERATIONS + 1):
        task_id = holder_id(issue.repo, issue.number, generation)
        if not (ws.task_file(task_id).exists() or ws.events_file(task_id).exists()):
            return task_id, None
        try:
            task = load_task(ws, task_id)
        except TeamdeckError:
            return task_id, None  # unreadable: validate says why; its next step fails, said once per look
        if task.state not in TERMINAL:
            return task_id, task
    return holder_id(issue.repo, issue.number, MAX_GENERATIONS), None


MAX_GENERATIONS = 50
"""Times an issue can be followed again after reopening (the last id is reused beyond)."""


def _stall_of(
    issue: ForgeIssue,
    agent: Agent,
    kind: str,
    start: datetime,
    events: list[Event],
    following: Following,
    settings: AutoworkSettings,
    now: datetime,
) -> Stall | None:
    worker = check_id(agent.login, "worker id")
    holder = following.task
    gates = [g for g in holder.gates if g.kind == STALL_GATE and g.agentInstance == worker] if holder else []
    if any(g.state == "rejected" and g.decidedAt and parse_iso(g.decidedAt) >= start for g in gates):
        return None  # a person gave up waiting for it on this work
    actor = f"gitea:{agent.login}"
    moments = [start, *(parse_iso(e.ts) for e in events if e.actor.lower() == actor)]
    moments += [parse_iso(gate.decidedAt) for gate in gates if gate.decidedAt]
    since = max(moments)
    why = "has not answered" if kind == "issue" else "has not commented on the discussion"
    owed = Stall(
        following.task_id, agent.team, worker, agent.member, why, since, 0.0, 0, "nothing",
        None, None, "issue" if kind == "issue" else "discussion", issue.ref,
    )  # fmt: skip
    return schedule(owed, following.events, gates, settings, now)


def ensure_holder(ws: Workspace, stall: Stall) -> tuple[Task, Worker]:
    """The task that follows the stalled issue, with the agent as its worker, made (or
    the worker added) when missing; idempotent."""
    key = _key_of(stall.subject)
    issue = load_issue(ws, key)

    def decide(current: Task | None) -> list[Event]:
        events = []
        if current is None:
            task: dict[str, Any] = {
                "id": stall.task_id,
                "title": f"{issue.ref} {issue.title}"[:200],
                "state": "working",
                "gates": [],
                "team": stall.team,
                "creator": "forge",
                "workers": [],
                "forgeIssue": key,
            }
            events.append(new_event(ws, "task.created", {"task": task}, actor="forge"))
        if current is None or all(worker.id != stall.worker for worker in current.workers):
            worker = {"id": stall.worker, "member": stall.member, "role": "implementor", "assignedAt": iso(stall.since)}
            events.append(new_event(ws, "task.delegated", {"worker": worker}, actor="forge"))
        return events

    action = f"follow the stall on {issue.ref}"
    exists = ws.task_file(stall.task_id).exists() or ws.events_file(stall.task_id).exists()
    try:
        change = transact(ws, stall.task_id, decide, action=action, create=not exists)
    except Refused:
        if exists:
            raise
        change = transact(ws, stall.task_id, decide, action=action)  # another supervisor made it meanwhile
    if not exists:
        ws.agents_dir(stall.task_id).mkdir(exist_ok=True)
    worker = next(worker for worker in change.task.workers if worker.id == stall.worker)
    return change.task, worker


def _key_of(ref: str) -> str:
    """``acme/quant#201`` → ``acme__quant/201``."""
    repo, _, number = ref.rpartition("#")
    return issue_key(repo, int(number))


def nudge_text(stall: Stall, attempt: int, cause: str) -> tuple[str, str]:
    """The ``(text, summary)`` of a nudge about Gitea work."""
    return _nudge_text(stall.kind == "discussion", stall.subject, attempt, cause)


def nudge_again_text(ws: Workspace, task: Task, cause: str) -> tuple[str, str]:
    """The ``(text, summary)`` of the nudge a person's "nudge again" sends about the
    issue ``task`` follows."""
    issue = load_issue(ws, forge_issue_of(task) or "")
    return _nudge_text(not issue.assignees, issue.ref, 1, cause)


def _nudge_text(discussion: bool, subject: str, attempt: int, cause: str) -> tuple[str, str]:
    if discussion:
        asks = f"the discussion on {subject} waits for your comment"
        then = "Comment on the issue with what you think (or that you have nothing to add)."
    else:
        asks = f"{subject}, assigned to you, waits for your work"
        then = (
            "Comment on the issue with where you are, push to its PR, or post an `Action Report` comment "
            "when it is done; if you are blocked, say so in a comment."
        )
    return f"Reminder ({attempt}): {asks}. {cause}. {then}", f"Reminder: {subject} waits for you"


def reassign_target_check(ws: Workspace, task: Task, gate: Gate, target: str) -> Agent:
    """The agent ``target`` (a member of the task's team) is on Gitea, checked before
    anything is written.

    Raises:
        Refused: the task follows a discussion (everyone's), or the member has no Gitea
            login teamdeck knows.
    """
    issue = load_issue(ws, forge_issue_of(task) or "")
    if not issue.assignees:
        raise Refused(
            f"Could not reassign {issue.ref} to {target}: it is a discussion every agent was asked to join; "
            "leave the note empty to nudge again, or reject to give up; nothing was written"
        )
    found = next((a for a in known_agents(ws).all() if a.team == task.team and a.member == target), None)
    if found is None:
        raise Refused(
            f"Could not reassign {issue.ref} to {target}: teamdeck knows no Gitea login of {task.team}/{target} "
            "(map one under forge.agents in .teamdeck.yaml); nothing was written"
        )
    return found


def reassign_issue(ws: Workspace, task: Task, gate: Gate, member: str) -> list[str]:
    """Give the issue ``task`` follows to ``target`` instead of the stalled agent: the
    change of assignee is queued for Gitea (forge/outbox.jsonl, with a comment saying
    why), recorded on the issue, and the forge rules' assignment sends ``target`` its
    brief (once: the webhook Gitea sends for the new assignee later finds it sent)."""
    target = reassign_target_check(ws, task, gate, member)
    issue = load_issue(ws, forge_issue_of(task) or "")
    stalled = (gate.agentInstance or "").lower()
    assignees = [login for login in issue.assignees if login.lower() != stalled]
    if target.login not in {login.lower() for login in assignees}:
        assignees.append(target.login)
    who = gate.decidedBy or ws.actor
    # logins without "@": a mention would send both agents the comment besides what they are told here
    comment = f"[teamdeck] {gate.reason}. Reassigned to {target.login} (decided by {who})."
    queue_post(ws, issue.repo, issue.number, comment, close=False, assignees=assignees, why=f"reassign {issue.ref}")
    ctx = RuleContext(ws, known_agents(ws), issue.repo, who, Effects())
    if issue.assignees != assignees:
        ctx.record(issue, "issue.synced", {"fields": {"assignees": assignees}})
    assign(ctx, ctx.reload(issue))
    return [f"{issue.ref} reassigned to {target.team}/{target.member}", *ctx.effects.lines]
