"""The refresher's state between two snapshots (view/refresh/build.py reads into it; the
snapshot carries it, so the next refresh starts from it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import TYPE_CHECKING, TypeVar, cast

from teamdeck.protocol.team.ledger.results import DEFAULT_SHUTDOWN_TIMEOUT
from teamdeck.view.snapshot.events import EventRow
from teamdeck.view.snapshot.workspace import DEFAULT_STALE_AFTER, same_items

if TYPE_CHECKING:
    from teamdeck.runtime.config import AgentsConfig
    from teamdeck.store.workspace import Workspace
    from teamdeck.view.readers.log_source import LogSource
    from teamdeck.view.readers.tasks import Outputs
    from teamdeck.view.readers.team_files import TeamFiles
    from teamdeck.view.readers.team_roster import Runner
    from teamdeck.view.readers.team_tasks import TaskListFiles
    from teamdeck.view.snapshot.issues import IssueView
    from teamdeck.view.snapshot.plans import PlanView, TaskVerdicts
    from teamdeck.view.snapshot.runs import MemberRuns
    from teamdeck.view.snapshot.workspace import Decision, Problem, TaskView, TeamTaskListView, TeamView

_T = TypeVar("_T")


@dataclass
class ReadState:
    """What the refresher read, kept between refreshes: the private part of a snapshot
    (``WorkspaceSnapshot.state``), for view/refresh/build.py and the modules it is made of."""

    ws: Workspace
    tasks: dict[str, TaskView] = field(default_factory=dict)
    outputs: dict[str, Outputs] = field(default_factory=dict)
    """Task -> its worker outputs as last read (read again when ``agents/`` changes)."""
    unchecked: set[str] = field(default_factory=set)
    """Tasks whose worker outputs are not read yet (:func:`check_outputs` reads them)."""
    teams: dict[str, TeamFiles] = field(default_factory=dict)
    team_views: dict[str, TeamView] = field(default_factory=dict)
    team_decisions: dict[str, tuple[Decision, ...]] = field(default_factory=dict)
    waiting: dict[str, frozenset[str]] = field(default_factory=dict)
    stalled: dict[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    """Team -> (member lower-cased, why) for members a stall decision waits about."""
    logs: dict[str, LogSource] = field(default_factory=dict)
    plans: dict[str, PlanView] = field(default_factory=dict)
    verdicts: dict[str, TaskVerdicts] = field(default_factory=dict)
    issues: tuple[IssueView, ...] = ()
    issue_problems: tuple[str, ...] = ()
    forge_decisions: tuple[Decision, ...] = ()
    """Deliveries to Gitea that failed, as decisions (view/readers/outbox.py)."""
    session_decisions: tuple[Decision, ...] = ()
    """Live sessions' open permission prompts, as decisions (view/readers/sessions.py)."""
    session_events: dict[str, dict[str, str]] = field(default_factory=dict)
    """Team -> member -> its last hook event in words (the roster shows it)."""
    runner_decisions: tuple[Decision, ...] = ()
    """The runner's open decisions (view/readers/runs.py)."""
    runs: dict[str, MemberRuns] = field(default_factory=dict)
    """``team/member`` -> what ``teamdeck run`` ran of that member."""
    agents: AgentsConfig | None = None
    """``agents:`` of ``.teamdeck.yaml`` (None: none, or it cannot be read: nobody is run)."""
    agents_problem: Problem | None = None
    """Why ``agents:`` cannot be read (the runner does not start either)."""
    run_by: dict[str, dict[str, Runner]] = field(default_factory=dict)
    """Team -> its members an ``agents:`` entry names (lower-cased) -> their runs, as
    the team's view was derived with (view/readers/team_roster.py)."""
    task_lists: dict[str, TaskListFiles] = field(default_factory=dict)
    """Team -> what was read of its Claude Code task list (``tasks/<team>/<n>.json``)."""
    task_list_views: dict[str, TeamTaskListView] = field(default_factory=dict)
    listing_problems: tuple[Problem, ...] = ()
    settings_problem: Problem | None = None
    read_only: bool = False
    read_only_reason: str = ""
    record: bool = False
    """Record every inbox message read (protocol/team/observed.py): the live view does,
    a command that only reads does not."""
    auto_join: bool = True
    shutdown_timeout: timedelta = DEFAULT_SHUTDOWN_TIMEOUT
    stalled_after: int = 600
    stale_after: timedelta = DEFAULT_STALE_AFTER
    hide_ended: bool = False
    log_rows: tuple[EventRow, ...] = ()
    """The merged tail of the logs alone, as the last snapshot was made from it (its
    events add the teams' inbox and task rows, view/refresh/timeline.py): what new log rows
    are merged into."""
    derived: dict[str, tuple[tuple[object, ...], object]] = field(default_factory=dict)
    """What :meth:`derive` keeps: a name -> the objects a value was derived from,
    and the value."""

    def copy(self) -> ReadState:
        """A copy whose dicts can change without touching the snapshot this came from
        (the log readers are shared: they only move forward)."""
        return replace(
            self,
            tasks=dict(self.tasks),
            outputs=dict(self.outputs),
            unchecked=set(self.unchecked),
            teams=dict(self.teams),
            team_views=dict(self.team_views),
            team_decisions=dict(self.team_decisions),
            waiting=dict(self.waiting),
            stalled=dict(self.stalled),
            logs=dict(self.logs),
            plans=dict(self.plans),
            verdicts=dict(self.verdicts),
            task_lists=dict(self.task_lists),
            task_list_views=dict(self.task_list_views),
            run_by=dict(self.run_by),
            derived=dict(self.derived),
        )

    def derive(self, name: str, inputs: tuple[object, ...], compute: Callable[[], _T]) -> _T:
        """``compute()``, or the value it gave last time if ``inputs`` are the very
        objects it was computed from then. The views and files held here are immutable
        and replaced when their file changes, so the same objects mean the same value:
        one inbox change does not sort the whole decision queue again or walk every task's
        problems (each a few tenths of a millisecond per change at 200 tasks)."""
        kept = self.derived.get(name)
        if kept is not None and same_items(inputs, kept[0]):
            return cast(_T, kept[1])
        value = compute()
        self.derived[name] = (inputs, value)
        return value
