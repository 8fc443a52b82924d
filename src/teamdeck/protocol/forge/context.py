"""What every rule of a delivery works with (protocol/forge/rules.py): the workspace, the
known agents, who acted, the effects so far, and the few ways a rule changes things.

Every one-time effect is keyed by what it is about (the issue, the comment id, the PR's
head commit, the failing check), never only by the delivery that carried it: the same
change can arrive twice, as Gitea's webhook and through the catch-up that reads Gitea's
API after deliveries were missed (protocol/forge/catchup.py), and it must act once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from teamdeck.clock import iso
from teamdeck.model.event import Event
from teamdeck.model.forge import ForgeIssue
from teamdeck.protocol.common.markdown import code_span, fenced
from teamdeck.protocol.forge.agents import Agent, Agents
from teamdeck.protocol.forge.issues import change_issue, event, find_issue, issue_key
from teamdeck.protocol.forge.notify import send
from teamdeck.protocol.team.keyed_sends import logged_with_key
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line

Changes = list[tuple[str, dict[str, Any]]]
"""Events to append to an issue: ``(type, payload)`` each."""


@dataclass
class Effects:
    """What one delivery did, one line per effect (recorded in deliveries.jsonl)."""

    lines: list[str] = field(default_factory=list)

    def add(self, line: str) -> None:
        self.lines.append(line)


@dataclass(frozen=True)
class RuleContext:
    """One delivery being applied: ``sender`` is who acted on Gitea."""

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
        """Send ``kind`` to ``agent`` once per ``key`` (what the message is about), else
        once per delivery and recipient, so a redelivery after a crash sends only what
        was not sent (F18)."""
        once = key or (f"forge:{self.delivery}:{kind}:{agent.member}" if self.delivery else None)
        earlier = once is not None and logged_with_key(self.ws, agent.team, once) is not None
        sent = send(self.ws, agent, kind, values, key=once)  # an earlier send with the key is only finished
        if not earlier:
            self.effects.add(f"{kind} message to {agent.team}/{agent.member} ({sent.id})")

    def record(self, issue: ForgeIssue, type_: str, payload: dict[str, Any], *, once: str | None = None) -> bool:
        """Append one event to ``issue``; with ``once``, only if that key is not yet in its
        ``notified`` list, and the key is recorded with the event (in the same write), so
        a second delivery of the same change does not apply it twice (F18). Returns
        whether it was appended."""
        changes = [] if once is not None and type_ == "issue.notified" else [(type_, payload)]
        return self.record_all(issue, lambda _current: changes, once=once, what=type_)

    def record_all(
        self,
        issue: ForgeIssue,
        changes: Callable[[ForgeIssue | None], Changes],
        *,
        once: str | None,
        what: str,
    ) -> bool:
        """Append the events ``changes(current issue)`` gives, and with ``once`` its
        ``issue.notified`` mark, to ``issue`` in one write: all of them or none, and none
        when the mark is already there. A rule that tells someone calls it after the
        message is in the inbox, so a crash before it leaves nothing marked told and the
        redelivery tells again (keyed: once), and a crash after it leaves nothing to do
        (F23). Returns whether anything was appended."""
        key = issue_key(issue.repo, issue.number)

        def decide(current: ForgeIssue | None) -> list[Event]:
            if once is not None and current is not None and once in current.notified:
                return []
            events = [event(self.ws, type_, payload, self.actor) for type_, payload in changes(current)]
            if once is not None:
                events.append(event(self.ws, "issue.notified", {"key": once}, self.actor))
            return events

        return bool(change_issue(self.ws, key, decide, action=f"record {what} on {issue.ref}").events)

    def set_status(self, issue: ForgeIssue, status: str, reason: str, problem: str | None = None) -> None:
        if issue.status == status and issue.problem == problem:
            return
        self.record(issue, "issue.status_changed", {"to": status, "reason": reason, "problem": problem})
        self.effects.add(f"issue {issue.ref} {status}" + (f" ({problem})" if problem else ""))

    def reload(self, issue: ForgeIssue) -> ForgeIssue:
        found = find_issue(self.ws, issue.repo, issue.number)
        return found if found is not None else issue

    def work(self, issue: ForgeIssue, kind: str, detail: str = "", url: str | None = None) -> None:
        """Record what the assignee is now asked to do (an Action Report ends it)."""
        since = iso(self.ws.clock())
        self.record(issue, "issue.work_given", {"work": {"kind": kind, "since": since, "detail": detail, "url": url}})


def issue_values(issue: ForgeIssue) -> dict[str, str]:
    """The placeholders every issue message has (templates/forge/README.md)."""
    return {
        "ref": issue.ref,
        "repo": issue.repo,
        "number": str(issue.number),
        "title": code_span(issue.title),
        "title_plain": one_line(issue.title, 80),
        "body": fenced(issue.body) if issue.body.strip() else "(no description)",
    }
