"""The read model: one immutable picture of a workspace.

Every front draws from a :class:`WorkspaceSnapshot`: the CLI's ``status`` and the TUI's
panels. It is made of frozen dataclasses and tuples, so a worker thread can build the
next one while the UI thread draws the current one, and a widget can tell what changed
by comparing objects. Text in it is as the files have it (raw, not sanitised): every
front sanitises at the edge, where it knows whether the output is a terminal or JSON.

A file that cannot be read does not stop the picture: its row carries a
:class:`Problem` and the snapshot lists it in :attr:`WorkspaceSnapshot.problems`.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal

from teamdeck.clock import moment_of
from teamdeck.errors import InvalidFile

# Types only: the TUI draws its first snapshot before it imports the readers, with this
# module alone of the view; the other rows come with the readers that make them.
if TYPE_CHECKING:
    from teamdeck.view.snapshot.events import EventRow
    from teamdeck.view.snapshot.issues import IssueView
    from teamdeck.view.snapshot.plans import PlanView, TaskVerdicts
    from teamdeck.view.snapshot.runs import MemberRuns

DEFAULT_STALE_AFTER = timedelta(hours=6)
"""``staleAfterSeconds`` when the workspace does not set it (view/figures/liveness.py)."""

MemberStatus = Literal[
    "working",
    "idle",
    "awaiting",
    "shutdown-requested",
    "shutdown-stuck",
    "shutdown-approved",
    "offline",
    "never-run",
    "running",
    "failed",
]
"""Derived from the roster and the messages (see view/readers/team_roster.py), and for a
member an ``agents:`` entry names (``teamdeck run`` runs it) from its runs: its roster
says nothing of its turns (Claude Code's ``isActive`` stays true, a headless run sends
no idle notification), so ``working`` and ``idle`` would be guesses there:

- ``offline``: ``isActive`` is false.
- ``shutdown-approved``: the member approved a shutdown request but is still active
  (a known Claude Code failure: the ledger flags it, deactivate is offered).
- ``shutdown-stuck``: a shutdown request has waited past the timeout with no reply
  (the decision queue offers resend and force).
- ``shutdown-requested``: a shutdown request to the member has no reply yet.
- ``awaiting``: the member waits for a human: an unanswered plan approval request, or
  a blocked gate of a task its worker belongs to.
- ``idle``: its last word was an idle notification (``since`` says when); for a member
  the runner runs, its last run ended without failing (``since``: when it ended).
- ``working``: anything else, for a member the runner does not run.

For a member the runner runs, instead of ``working`` and ``idle``:

- ``running``: a run of it is going (``since``: when it started).
- ``failed``: its latest runs failed, ``run_failures`` of them in a row (``failed ×3``).
- ``never-run``: no run of it is recorded.
"""

RESTING: frozenset[MemberStatus] = frozenset({"idle", "never-run", "failed"})
"""The statuses the overview counts as idle (not at work): a member the runner runs that
never ran, or whose runs failed and wait for a person, is not active either."""

STATUS_LABELS: Mapping[str, str] = {
    "shutdown-requested": "shutdown requested",
    "shutdown-stuck": "awaiting shutdown_response",
    "shutdown-approved": "shutdown approved",
    "never-run": "never run",
}
"""A status in words, where the word is not the status itself."""

DecisionKind = str
"""What kind of decision waits: ``task-gate`` (a blocked gate in a task.yaml),
``plan-approval`` and ``permission`` (a request in a team lead's inbox),
``shutdown-stuck`` (a shutdown request that got no reply in time). The view only
builds decisions; what a kind is called, shows and how it is answered is its spec's
(teamdeck/decisions/kinds.py), so a new kind adds no branch here or in a front."""


@dataclass(frozen=True)
class Problem:
    """A file that could not be read (or a part of it), in one line.

    Attributes:
        path: the file, relative to the workspace.
        where: the place in it (``line 7``, ``$.gates[0].id``) or ``""``.
        why: what is wrong.
    """

    path: str
    where: str
    why: str

    @classmethod
    def of(cls, err: InvalidFile | Exception, path: str = "") -> Problem:
        """The problem an error describes (``path`` is used when the error has none)."""
        if isinstance(err, InvalidFile):
            return cls(str(err.path) or path, err.where, err.why)
        return cls(path, "", str(err))

    @property
    def text(self) -> str:
        place = f" {self.where}" if self.where else ""
        return f"{self.path}{place}: {self.why}"


@dataclass(frozen=True)
class WorkerView:
    """A worker of a task, as its final.json says (or ``pending`` / ``invalid``).

    Attributes:
        id: the agent directory name.
        status: completed / blocked / failed / invalid / pending.
        summary: the worker's summary (``""`` when invalid or pending).
        questions: what a blocked worker asks.
        problems: why the output is invalid, one line each.
        member: the team member this worker is (task.yaml ``workers[].member``).
    """

    id: str
    status: str
    summary: str = ""
    questions: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    member: str | None = None


@dataclass(frozen=True)
class Decision:
    """One decision a person is asked to make (open), or made (decided): a row of the
    decision queue, whatever its kind.

    Attributes:
        key: unique across the workspace: ``task:<task>:<gate>``, or
            ``<plan|permission|shutdown>:<team>:<member>:<requestId>``.
        kind: see :data:`DecisionKind`.
        subkind: a task gate's own kind (``worker-blocked``, ``verification-failed``,
            ``plan-approval``; model/task.py).
        state: ``blocked`` (waiting) or the decision (``approved`` / ``rejected``).
        created_at: when it started waiting (ISO-8601).
        source: where it comes from, for people: ``task t1`` / ``team alpha``.
        title: one line saying what is asked.
        reason: why it waits (a worker's reason; a plan's file).
        agent: the worker or member that waits.
        questions: what is asked (a blocked worker's questions).
        body: longer text to read before deciding (a plan's content, a tool's input).
        notes_path: the human-notes.md to read and write (task gates).
        task_id, gate_id: for task gates.
        team, member, request_id: for team requests (plan, permission, shutdown).
        tool: the tool a permission request asks for.
        decided_by, decided_at, note: the decision, once made.
    """

    key: str
    kind: DecisionKind
    state: str
    created_at: str
    source: str
    title: str
    subkind: str = ""
    reason: str = ""
    agent: str | None = None
    questions: tuple[str, ...] = ()
    body: str = ""
    notes_path: str | None = None
    task_id: str | None = None
    gate_id: str | None = None
    team: str | None = None
    member: str | None = None
    request_id: str | None = None
    tool: str = ""
    decided_by: str | None = None
    decided_at: str | None = None
    note: str | None = None

    @property
    def open(self) -> bool:
        return self.state == "blocked"


@dataclass(frozen=True)
class TaskView:
    """A teamdeck task (``tasks/<id>/task.yaml``) with its workers and gates.

    A task whose task.yaml cannot be read still has a row: ``problem`` says why and the
    other fields are empty.
    """

    id: str
    title: str = ""
    state: str = "?"
    team: str | None = None
    updated_at: str = ""
    revision: int = 0
    gates: tuple[Decision, ...] = ()
    workers: tuple[WorkerView, ...] = ()
    outputs_checked: bool = True
    """False while the workers' final.json files are not read yet (``workers`` are then
    the ones task.yaml names, status ``checking``): the first moment of a TUI start,
    see view/refresh/build.py ``check_outputs``."""
    summary_path: str | None = None
    problem: Problem | None = None

    @functools.cached_property
    def open_gates(self) -> tuple[Decision, ...]:
        """The gates still waiting (worked out once per view: every refresh asks)."""
        return tuple(gate for gate in self.gates if gate.open)

    def workers_by_status(self) -> dict[str, int]:
        """How many workers are in each status (only statuses that occur)."""
        counts: dict[str, int] = {}
        for worker in self.workers:
            counts[worker.status] = counts.get(worker.status, 0) + 1
        return counts


@dataclass(frozen=True)
class MessageView:
    """One entry of an inbox, decoded, or a fold of consecutive idle notifications.

    Attributes:
        index: position in the inbox array (the first of a fold).
        kind: a message kind (``plain``, ``shutdown_request``...; model/team.py) or
            ``idle`` for a fold.
        sender: ``from``.
        timestamp: when (the last one, for a fold).
        summary: the message summary (or a kind-specific one-liner).
        text: the full body to show (a plain message's text, a plan's content...).
        read: whether the recipient consumed it (a fold: all of them).
        request_id: the handshake id, for requests and replies.
        count: how many idle notifications a fold stands for (1 otherwise).
        raw: the entry's ``text`` exactly as written (a fold: the last one's), for
            "view raw".
        folded: a fold's idle notifications one by one, oldest first (empty otherwise).
    """

    index: int
    kind: str
    sender: str
    timestamp: str
    summary: str = ""
    text: str = ""
    read: bool = True
    request_id: str | None = None
    count: int = 1
    raw: str = ""
    folded: tuple[MessageView, ...] = ()


@dataclass(frozen=True)
class MemberView:
    """A member of a team with its derived status.

    Attributes:
        team, name: who.
        agent_type, model, color: from config.json.
        role: teamdeck's role from config.json (coordinator, crafter, gate; None: none).
        lead: whether this is the team lead.
        active: ``isActive`` (true when absent).
        status: see :data:`MemberStatus`.
        since: when the status started (idle since; shutdown requested at...).
        detail: one line more about the status (idle reason, rejection reason...).
        unread: unread messages in its inbox.
        last_activity: the newest thing it said or was sent (ISO-8601) or ``""``.
        markers: ledger problems on this member (not injected, not consumed,
            approved-but-still-active...), one short line each.
        inbox: its messages oldest first, idle notifications folded.
        inbox_problem: its inbox could not be read.
        pending_shutdown: the open shutdown request id, if any.
        pending_plan: the open plan approval request id, if any.
        connected: the URL of a live ``teamdeck mcp --http`` server acting as this
            member (its heartbeat is fresh), else ``""``.
        session_event: what the member's live session last told a hook
            (``TaskCompleted "Write notes" at …``; view/readers/sessions.py), else ``""``.
        run_by_runner: an ``agents:`` entry names it: ``teamdeck run`` runs it, its
            status comes from its runs, and a wake of it is acted on.
        run_failures: its latest runs that failed in a row (status ``failed``).
    """

    team: str
    name: str
    agent_type: str | None = None
    model: str | None = None
    color: str | None = None
    role: str | None = None
    lead: bool = False
    active: bool = True
    status: MemberStatus = "working"
    since: str = ""
    detail: str = ""
    unread: int = 0
    last_activity: str = ""
    markers: tuple[str, ...] = ()
    inbox: tuple[MessageView, ...] = ()
    inbox_problem: Problem | None = None
    pending_shutdown: str | None = None
    pending_plan: str | None = None
    connected: str = ""
    session_event: str = ""
    run_by_runner: bool = False
    run_failures: int = 0

    @property
    def key(self) -> str:
        return f"{self.team}/{self.name}"

    @property
    def status_label(self) -> str:
        """The status in words: ``shutdown requested``, ``never run``, ``failed ×3``."""
        if self.status == "failed":
            return f"failed ×{self.run_failures}"
        return STATUS_LABELS.get(self.status, self.status)


@dataclass(frozen=True)
class TeamView:
    """A Claude Code team (``teams/<name>/``): roster, derived statuses, problems."""

    name: str
    description: str = ""
    lead: str = "team-lead"
    members: tuple[MemberView, ...] = ()
    problem: Problem | None = None
    markers: tuple[str, ...] = ()
    task_reports: tuple[tuple[str, str, str], ...] = ()
    """``(task id, member, at)`` of each ``task_completed`` frame, oldest first."""
    session: str = ""
    """The Claude Code session an implicit session team belongs to (its lead's
    ``leadSessionId``; protocol/team/archive.py), ``""`` for a team made by name."""
    ended: bool = False
    """The team's directory is gone: what is shown is its last known roster and what
    teamdeck recorded of its inboxes."""

    @functools.cached_property
    def unread(self) -> int:
        return sum(member.unread for member in self.members)

    @functools.cached_property
    def statuses(self) -> Counter[MemberStatus]:
        """How many members are in each status (worked out once per view: the
        overview counts them on every change)."""
        return Counter(member.status for member in self.members)

    @functools.cached_property
    def quiet_since(self) -> tuple[datetime | None, ...]:
        """Each member's last activity, in member order; for a member with none, the
        team's newest; None when no member has any (view/figures/liveness.py judges staleness
        by it). Worked out once per view: the overview judges every member again at
        each change and each tick of the clock."""
        own = [moment_of(member.last_activity) if member.last_activity else None for member in self.members]
        newest = max((moment for moment in own if moment is not None), default=None)
        return tuple(moment or newest for moment in own)

    @functools.cached_property
    def judged(self) -> dict[timedelta, tuple[datetime, datetime, list[MemberView]]]:
        """view/figures/liveness.py's memory of who is stale in this view, per stale time, with
        the span of clock times it holds for (the overview asks at every change and
        every tick of the clock; the answer changes only when a member's quiet time
        crosses the stale time)."""
        return {}


@dataclass(frozen=True)
class TeamTaskView:
    """A task of a team's Claude Code task list (``tasks/<team>/<n>.json``).

    Attributes:
        team, id: which task (``id`` is the file's number).
        subject, description, active_form: what it is, as written.
        status: as written (``pending``, ``in_progress``, ``completed``, ``deleted`` or
            any other value).
        owner: the member it is assigned to, or None.
        blocked_by: the ids it waits for that are not completed yet ("what blocks it").
        blocks: the ids that wait for it.
        internal: a teammate tracker (``metadata._internal``): lists hide it.
        stalled: why it looks stuck (``in_progress`` and its owner offline, or idle
            for longer than the workspace's ``stalledAfterSeconds``), else ``""``.
        path: the file, relative to the workspace.
    """

    team: str
    id: str
    subject: str = ""
    description: str = ""
    active_form: str = ""
    status: str = "pending"
    owner: str | None = None
    blocked_by: tuple[str, ...] = ()
    blocks: tuple[str, ...] = ()
    internal: bool = False
    stalled: str = ""
    path: str = ""
    reported: str = ""
    """``completed by <member> at <when>`` when a ``task_completed`` frame reported the
    task done while its file says otherwise (it is then not stalled), else ``""``."""

    @property
    def key(self) -> str:
        """Unique in the workspace: ``<team>#<id>``."""
        return f"{self.team}#{self.id}"


@dataclass(frozen=True)
class TeamTaskListView:
    """A team's Claude Code task list: its tasks by id (internal ones too, flagged) and
    the files that are not valid tasks (also in :attr:`WorkspaceSnapshot.problems`)."""

    team: str
    tasks: tuple[TeamTaskView, ...] = ()
    problems: tuple[Problem, ...] = ()

    @property
    def visible(self) -> tuple[TeamTaskView, ...]:
        return tuple(task for task in self.tasks if not task.internal)

    @property
    def hidden(self) -> int:
        return len(self.tasks) - len(self.visible)

    @property
    def stalled(self) -> tuple[TeamTaskView, ...]:
        return tuple(task for task in self.visible if task.stalled)


@dataclass(frozen=True)
class WorkspaceSnapshot:
    """Everything the fronts show, as of :attr:`taken_at`.

    Attributes:
        root: the workspace directory.
        taken_at: the workspace clock when this snapshot was made.
        teams: teams by name order.
        tasks: teamdeck tasks by id order.
        decisions: the open decisions, oldest first (all kinds).
        events: the loaded tail of every log, oldest first (see view/readers/log_source.py).
        events_complete: every line of every log is loaded.
        problems: every file that could not be read, by path.
        notices: one-line messages worth showing once (a log was replaced...).
        read_only: writes are off (and why, in ``read_only_reason``).
        auto_join: the workspace setting autoJoin.
        stale_after: the workspace setting staleAfterSeconds (view/figures/liveness.py).
        hide_ended: the workspace setting hideEndedTeams.
        plans: coordinator plans by id order (see view/readers/plans.py).
        verdicts: task id -> its verdict history (tasks that have one).
        issues: issue-driven teams' issues as a tree, parents before their subs (view/readers/issues.py).
        issue_problems: one line per issue file that could not be read.
        team_tasks: the Claude Code task list of each team that has one, by team.
        runs: ``team/member`` -> what ``teamdeck run`` ran of that member (view/readers/runs.py).
    """

    root: str
    taken_at: datetime
    teams: tuple[TeamView, ...] = ()
    tasks: tuple[TaskView, ...] = ()
    decisions: tuple[Decision, ...] = ()
    events: tuple[EventRow, ...] = ()
    events_complete: bool = True
    problems: tuple[Problem, ...] = ()
    notices: tuple[str, ...] = ()
    read_only: bool = False
    read_only_reason: str = ""
    auto_join: bool = True
    stale_after: timedelta = DEFAULT_STALE_AFTER
    hide_ended: bool = False
    plans: tuple[PlanView, ...] = ()
    verdicts: Mapping[str, TaskVerdicts] = field(default_factory=dict)
    issues: tuple[IssueView, ...] = ()
    issue_problems: tuple[str, ...] = ()
    team_tasks: tuple[TeamTaskListView, ...] = ()
    runs: Mapping[str, MemberRuns] = field(default_factory=dict)
    state: Any = field(default=None, compare=False, repr=False)
    """The refresher's private state (parsed files, log readers); not for fronts."""

    @functools.cached_property
    def members(self) -> tuple[MemberView, ...]:
        return tuple(member for team in self.teams for member in team.members)

    def team(self, name: str) -> TeamView | None:
        return next((team for team in self.teams if team.name == name), None)

    def task(self, task_id: str) -> TaskView | None:
        return next((task for task in self.tasks if task.id == task_id), None)

    def member(self, key: str) -> MemberView | None:
        """The member ``<team>/<name>``."""
        return next((member for member in self.members if member.key == key), None)

    def decision(self, key: str) -> Decision | None:
        return self._decisions_by_key.get(key)

    @functools.cached_property
    def _decisions_by_key(self) -> dict[str, Decision]:
        """The decisions by key (the decisions panel looks its selected one up for each
        of its keys, on every change)."""
        return {
            decision.key: decision for decision in reversed(self.decisions)
        }  # the first of a key wins, as a scan would

    def plan(self, plan_id: str) -> PlanView | None:
        return next((plan for plan in self.plans if plan.id == plan_id), None)

    def team_task(self, key: str) -> TeamTaskView | None:
        """The team task ``<team>#<id>``."""
        team, _, task_id = key.partition("#")
        listing = next((listing for listing in self.team_tasks if listing.team == team), None)
        return next((task for task in listing.tasks if task.id == task_id), None) if listing else None

    @property
    def stalled_tasks(self) -> tuple[TeamTaskView, ...]:
        """Every visible team task that looks stuck (see :attr:`TeamTaskView.stalled`)."""
        return tuple(task for listing in self.team_tasks for task in listing.stalled)

    @property
    def unread(self) -> int:
        return sum(team.unread for team in self.teams)


def same_items(new: Sequence[object], old: Sequence[object]) -> bool:
    """Whether ``new`` holds the very objects of ``old``, in order (snapshots reuse the
    objects of what did not change, so this says "unchanged" for the price of a pass
    of identity checks)."""
    return new is old or (len(new) == len(old) and all(a is b for a, b in zip(new, old, strict=True)))
