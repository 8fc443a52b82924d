"""A team's shared task list as teamdeck reads it, whatever team format keeps it.

A format lists the entries of a team's task list (:class:`TaskListing`: each named the
way the format names it, a Claude Code task file ``3.json``), reads one entry at a time
(the live view re-reads only what changed) and the whole list at once
(:class:`TaskList`, for the commands). Each entry is a
:class:`~teamdeck.model.team.ClaudeTask` record: the fields of a task as the agent-team
tools share them (subject, status, owner, blocks, blockedBy, metadata).

Dataclasses here, imported only off the path of a ``send`` (protocol/team/teams.py imports
this module for its types alone).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from teamdeck.model.team import ClaudeTask


@dataclass(frozen=True)
class TaskListing:
    """The entries of a task list: task entries in id order, and the names of things in
    the list's place that look like tasks but are not named as one (reported, never read)."""

    names: tuple[str, ...]
    misnamed: tuple[str, ...]


@dataclass
class TaskList:
    """A team's task list as read.

    Attributes:
        team: the list's team.
        tasks: every entry that is a valid task, by id (internal ones too).
        problems: one line per entry that is not (naming it and what is wrong).
    """

    team: str
    tasks: list[ClaudeTask] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def visible(self) -> list[ClaudeTask]:
        """The tasks a task list shows: ``metadata._internal`` ones hidden."""
        return [task for task in self.tasks if not task.internal]
