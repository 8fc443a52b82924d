"""Issue-driven teams' issues as the snapshot holds them: one :class:`IssueView` per
issue under ``forge/``, a row of the tree each parent is followed by its subs in
(``teamdeck forge issues`` and the TUI's Issues panel; read by view/readers/issues.py).

A row is frozen for a snapshot and keeps text raw, as the rest of the snapshot does:
fronts sanitise it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
