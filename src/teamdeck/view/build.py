"""Making a :class:`WorkspaceSnapshot` from disk, and the next one from a batch of
changed paths.

:func:`build_snapshot` reads everything once (event logs tail-first). :func:`refresh`
maps each changed path to what it belongs to - one task, one team's config or inbox,
an event log, the settings - re-reads only that, and derives the rest (gate queue,
member statuses, problems) in memory. Refreshing with paths that did not change gives
an equal snapshot: our own writes come back through the watcher harmlessly.
:func:`retime` is the one refresh no file asks for: time passing makes a shutdown
request overdue, so the live view calls it now and then.

The snapshot carries the refresher's private state (what was read, and the event log
readers, which advance); always refresh the newest snapshot. One thread at a time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar, cast

from teamdeck.clock import parse_iso
from teamdeck.errors import TeamdeckError
from teamdeck.protocol.ledger.results import DEFAULT_SHUTDOWN_TIMEOUT
from teamdeck.store.files import FileState, changed_files, file_states, list_entries
from teamdeck.store.paths import InvalidId, check_id
from teamdeck.store.settings import load_settings
from teamdeck.store.teamfiles import list_team_names, task_dir_kind
from teamdeck.store.workspace import SETTINGS_FILE, Workspace
from teamdeck.view.eventlog import EventRow, LogSource, event_row, message_row
from teamdeck.view.issues import IssueView, read_issue_tree
from teamdeck.view.plans import (
    PlanView,
    TaskVerdicts,
    plan_of_path,
    read_plans,
    read_verdicts,
    update_plans,
    verdict_task_of_path,
)
from teamdeck.view.snapshot import (
    GateView,
    Problem,
    TaskView,
    TeamTaskListView,
    TeamView,
    WorkspaceSnapshot,
    same_items,
)
from teamdeck.view.tasks import Outputs, read_outputs, read_task
from teamdeck.view.team_tasks import TaskListFiles, read_task_list_files, reread_task_files, task_list_view
from teamdeck.view.teams import (
    TeamFiles,
    connected,
    inbox_problems,
    read_team_files,
    reread_config,
    reread_connections,
    reread_inbox,
    team_gates,
    team_view,
    with_ledger,
)

TAIL_BUDGET = 1000
"""Log lines read at start over all logs together (each log gets its share)."""
MIN_TAIL = 5
"""Lines read at start from each log, however many logs there are."""
NEW_LOG_TAIL = 50
"""Lines read from a log that appears while the app runs."""
MAX_EVENTS = 10_000
"""The most rows the merged events tail keeps (the newest)."""

_T = TypeVar("_T")


@dataclass
class _State:
    """What the refresher read, kept between refreshes (private to this module)."""

    ws: Workspace
    tasks: dict[str, TaskView] = field(default_factory=dict)
    outputs: dict[str, Outputs] = field(default_factory=dict)
    """Task -> its worker outputs as last read (read again when ``agents/`` changes)."""
    unchecked: set[str] = field(default_factory=set)
    """Tasks whose worker outputs are not read yet (:func:`check_outputs` reads them)."""
    teams: dict[str, TeamFiles] = field(default_factory=dict)
    team_views: dict[str, TeamView] = field(default_factory=dict)
    team_gates: dict[str, tuple[GateView, ...]] = field(default_factory=dict)
    waiting: dict[str, frozenset[str]] = field(default_factory=dict)
    logs: dict[str, LogSource] = field(default_factory=dict)
    plans: dict[str, PlanView] = field(default_factory=dict)
    verdicts: dict[str, TaskVerdicts] = field(default_factory=dict)
    issues: tuple[IssueView, ...] = ()
    issue_problems: tuple[str, ...] = ()
    task_lists: dict[str, TaskListFiles] = field(default_factory=dict)
    """Team -> what was read of its Claude Code task list (``tasks/<team>/<n>.json``)."""
    task_list_views: dict[str, TeamTaskListView] = field(default_factory=dict)
    listing_problems: tuple[Problem, ...] = ()
    settings_problem: Problem | None = None
    read_only: bool = False
    read_only_reason: str = ""
    auto_join: bool = True
    shutdown_timeout: timedelta = DEFAULT_SHUTDOWN_TIMEOUT
    stalled_after: int = 600
    derived: dict[str, tuple[tuple[object, ...], object]] = field(default_factory=dict)
    """What :func:`_derived` keeps: a name -> the objects a value was derived from,
    and the value."""

    def copy(self) -> _State:
        """A copy whose dicts can change without touching the snapshot this came from
        (the log readers are shared: they only move forward)."""
        return replace(
            self,
            tasks=dict(self.tasks),
            outputs=dict(self.outputs),
            unchecked=set(self.unchecked),
            teams=dict(self.teams),
            team_views=dict(self.team_views),
            team_gates=dict(self.team_gates),
            waiting=dict(self.waiting),
            logs=dict(self.logs),
            plans=dict(self.plans),
            verdicts=dict(self.verdicts),
            task_lists=dict(self.task_lists),
            task_list_views=dict(self.task_list_views),
            derived=dict(self.derived),
        )


def build_snapshot(ws: Workspace, *, tail_budget: int = TAIL_BUDGET, check_outputs: bool = True) -> WorkspaceSnapshot:
    """Read the whole workspace into a snapshot.

    Args:
        ws: the workspace (its clock stamps the snapshot; its read-only flag shows).
        tail_budget: log lines to read at start over all logs (see :data:`TAIL_BUDGET`).
        check_outputs: read and check the workers' final.json files. False leaves every
            task's workers ``checking`` until :func:`check_outputs`:
            the TUI draws its first frame without them, since checking them (jsonschema's
            import and validator included) was a twelfth of a start and panel 1 does
            not show them.

    Returns:
        The snapshot; files that could not be read are in its ``problems``.
    """
    state = _State(ws)
    _load_settings(state)
    task_ids, team_names = _list(state)
    sources = len(task_ids) + len(team_names)
    per_log = max(MIN_TAIL, tail_budget // max(1, sources))
    for task_id in task_ids:
        _open_log(state, ws.events_file(task_id), f"task {task_id}", per_log, event=True)
        _read_task(state, task_id, outputs_changed=check_outputs)
    for team in team_names:
        _open_log(state, ws.messages_log(team), f"team {team}", per_log, event=False)
        files = read_team_files(ws, team, shutdown_timeout=state.shutdown_timeout)
        if files is not None:
            state.teams[team] = files
    _derive_teams(state, set(state.teams), tasks_changed=True)
    for team in _task_list_names(state):
        state.task_lists[team] = read_task_list_files(ws, team)
    _derive_task_lists(state)
    state.plans = read_plans(ws)
    state.issues, state.issue_problems = read_issue_tree(ws)
    for task_id in state.tasks:
        _read_verdicts(state, task_id)
    rows = _merge_all(state)
    return _snapshot(state, rows, ())


FileRecord = dict[Path, FileState]
"""The state of every file a snapshot is read from, at one moment (:func:`file_record`)."""


def file_record(ws: Workspace) -> FileRecord:
    """The state now of every file a snapshot of ``ws`` is read from (tasks/, teams/,
    plans/, forge/ and the settings): taken before a read that no watcher covers, it
    tells later what changed since (:func:`changed_between`)."""
    return file_states((ws.tasks_dir, ws.teams_dir, ws.plans_dir, ws.forge_dir, ws.root / SETTINGS_FILE))


def changed_between(before: FileRecord, after: FileRecord) -> set[Path]:
    """The files added, removed or changed between two records (refresh them)."""
    return changed_files(before, after)


def check_outputs(snapshot: WorkspaceSnapshot) -> WorkspaceSnapshot:
    """The snapshot with the worker outputs that :func:`build_snapshot` left unchecked
    read and checked (the same snapshot when there are none)."""
    state = snapshot.state
    if not state.unchecked:
        return snapshot
    return refresh(snapshot, [state.ws.agents_dir(task_id) for task_id in sorted(state.unchecked)])


def refresh(snapshot: WorkspaceSnapshot, changed: Iterable[Path]) -> WorkspaceSnapshot:
    """The snapshot after the files at ``changed`` changed (were added, modified or
    removed).

    Args:
        snapshot: the newest snapshot (made by :func:`build_snapshot` or this).
        changed: absolute paths; anything outside the workspace is ignored.

    Returns:
        A new snapshot (equal to ``snapshot`` when nothing it shows changed).
    """
    state: _State = snapshot.state.copy()
    ws = state.ws
    work = _classify(ws.root, changed)
    if work.settings:
        timeout = state.shutdown_timeout
        _load_settings(state)
        if state.shutdown_timeout != timeout:  # every team's overdue shutdowns change
            for team in state.teams:
                work.teams.setdefault(team, set()).add("timeout")
    if work.relist:
        _relist(state)
    new_rows: list[EventRow] = []
    rebuild = False
    for task_id in sorted(work.tasks):
        if task_id not in state.tasks and not _is_task(ws, task_id):
            continue
        log = _open_log(state, ws.events_file(task_id), f"task {task_id}", NEW_LOG_TAIL, event=True)
        rebuild |= _advance(log, new_rows)
        _read_task(state, task_id, outputs_changed=task_id in work.outputs)
    teams_changed = set()
    for team, parts in sorted(work.teams.items()):
        if _refresh_team(state, team, parts):
            teams_changed.add(team)
        if team in state.teams:
            log = _open_log(state, ws.messages_log(team), f"team {team}", NEW_LOG_TAIL, event=False)
            rebuild |= _advance(log, new_rows)
    _derive_teams(state, teams_changed, tasks_changed=bool(work.tasks) or work.relist)
    for team in teams_changed:  # a team that appeared or went: its task list with it
        if (team in state.teams) != (team in state.task_lists):
            work.task_lists.setdefault(team, set()).add("all")
    for team, names in sorted(work.task_lists.items()):
        _refresh_task_list(state, team, names)
    _derive_task_lists(state)
    for task_id in work.verdicts:
        _read_verdicts(state, task_id)
    update_plans(ws, state.plans, work.plans, work.tasks, relist=work.relist or work.relist_plans)
    if work.forge or work.relist:
        state.issues, state.issue_problems = read_issue_tree(ws)
    notices = tuple(notice for log in state.logs.values() if (notice := _take_notice(log)))
    if rebuild:
        rows = _merge_all(state)
    elif new_rows:
        rows = _merge(snapshot.events, new_rows)
    else:
        rows = snapshot.events
    return _snapshot(state, rows, notices)


def retime(snapshot: WorkspaceSnapshot) -> WorkspaceSnapshot:
    """The snapshot as of the workspace clock now, for what time alone changes (a live
    front calls this now and then, since the passing of time changes no file): teams
    with a shutdown request still awaiting its reply within the timeout get their
    ledger built again (it may be overdue by now), teams where an MCP heartbeat went
    stale are shown again (a server killed without removing its file), and the team
    task lists are derived again (a task whose owner stays idle becomes stalled). The
    same snapshot when nothing it shows changed."""
    state: _State = snapshot.state.copy()
    changed = set()
    now = state.ws.clock()
    for team, files in state.teams.items():
        view = state.team_views.get(team)
        if view is not None and any(m.connected and not connected(files, m.name, now) for m in view.members):
            changed.add(team)
        if files.ledger is None or not any(
            handshake.kind == "shutdown" and handshake.state == "awaiting_response" and not handshake.overdue
            for handshake in files.ledger.handshakes
        ):
            continue
        again = with_ledger(state.ws, files)
        if again.ledger is not None and [h.overdue for h in again.ledger.handshakes] != [
            h.overdue for h in files.ledger.handshakes
        ]:
            state.teams[team] = again
            changed.add(team)
    if changed:
        _derive_teams(state, changed, tasks_changed=False)
    if not _derive_task_lists(state) and not changed:
        return snapshot
    return _snapshot(state, snapshot.events, ())


def load_older(snapshot: WorkspaceSnapshot, count: int = 1000) -> WorkspaceSnapshot:
    """The snapshot with up to ``count`` more older lines loaded from each log that is
    not loaded completely (the events view asks when scrolled to its top)."""
    state: _State = snapshot.state.copy()
    for log in state.logs.values():
        log.load_older(count)
    return _snapshot(state, _merge_all(state, limit=len(snapshot.events) + count), ())


# --- what a path belongs to -----------------------------------------------------------


@dataclass
class _Work:
    settings: bool = False
    relist: bool = False
    tasks: set[str] = field(default_factory=set)
    outputs: set[str] = field(default_factory=set)
    """Tasks where something under ``agents/`` (or the task directory itself) changed:
    their worker outputs are read again."""
    teams: dict[str, set[str]] = field(default_factory=dict)
    """team -> the parts to re-read: ``config``, ``messages`` or ``inbox:<file name>``."""
    plans: set[str] = field(default_factory=set)
    relist_plans: bool = False
    verdicts: set[str] = field(default_factory=set)
    """Tasks whose ``guardian/`` changed: their verdict history is read again."""
    forge: bool = False
    """Something under ``forge/`` changed: the issues are read again."""
    task_lists: dict[str, set[str]] = field(default_factory=dict)
    """``tasks/<name>/`` -> the file names changed in it (``all``: the directory
    itself), in case it is a team's Claude Code task list."""


def _classify(root: Path, changed: Iterable[Path]) -> _Work:
    work = _Work()
    for path in changed:
        try:
            parts = Path(path).relative_to(root).parts
        except ValueError:
            continue
        if not parts:
            work.relist = True
        elif parts == (SETTINGS_FILE,):
            work.settings = True
        elif parts[0] == "forge":
            work.forge = True
        elif parts[0] == "plans":
            plan = plan_of_path(parts)
            if plan is None:
                work.relist_plans = True
            else:
                work.plans.add(plan)
        elif parts[0] == "tasks":
            if len(parts) == 1:
                work.relist = True
            else:
                work.tasks.add(parts[1])
                if len(parts) == 2 or parts[2] == "agents":
                    work.outputs.add(parts[1])
                if verdict_task_of_path(parts):
                    work.verdicts.add(parts[1])
                if len(parts) <= 3:
                    work.task_lists.setdefault(parts[1], set()).add(parts[2] if len(parts) == 3 else "all")
        elif parts[0] == "teams":
            if len(parts) == 1:
                work.relist = True
                continue
            team = work.teams.setdefault(parts[1], set())
            if len(parts) == 2:
                team.add("all")
            elif parts[2] == "config.json":
                team.add("config")
            elif parts[2] == "messages.jsonl":
                team.add("messages")
            elif parts[2] == "connections":
                team.add("connections")
            elif parts[2] == "inboxes":
                team.add(f"inbox:{parts[3]}" if len(parts) == 4 else "all")
    return work


# --- reading ---------------------------------------------------------------------------


def _load_settings(state: _State) -> None:
    ws = state.ws
    try:
        settings = load_settings(ws.root)
        state.settings_problem = None
    except TeamdeckError as err:
        state.settings_problem = Problem.of(err, SETTINGS_FILE)
        return
    state.auto_join = settings.autoJoin
    state.shutdown_timeout = timedelta(seconds=settings.shutdownTimeoutSeconds)
    state.stalled_after = settings.stalledAfterSeconds
    if ws.read_only:
        state.read_only, state.read_only_reason = True, ws.read_only_reason or "read-only mode"
    elif settings.readOnly:
        state.read_only, state.read_only_reason = True, f"readOnly in {SETTINGS_FILE}"
    else:
        state.read_only, state.read_only_reason = False, ""


def _list(state: _State) -> tuple[list[str], list[str]]:
    """The task ids and team names in the workspace; bad names become problems."""
    ws = state.ws
    problems = []
    task_ids = []
    try:
        entries = list_entries(ws.tasks_dir)
    except TeamdeckError as err:
        entries, problems = [], [Problem.of(err, "tasks")]
    for entry in entries:
        if not entry.is_dir or entry.name.startswith("."):
            continue
        if task_dir_kind(entry.path) != "teamdeck":
            continue
        try:
            task_ids.append(check_id(entry.name, "task id"))
        except InvalidId as err:
            problems.append(Problem(f"tasks/{entry.name!r}", "", f"ignored: {err}"))
    team_names, ignored = list_team_names(ws)
    problems += [Problem("teams", "", line) for line in ignored]
    state.listing_problems = tuple(problems)
    return task_ids, team_names


def _is_task(ws: Workspace, name: str) -> bool:
    try:
        check_id(name, "task id")
    except InvalidId:
        return False
    return task_dir_kind(ws.tasks_dir / name) == "teamdeck"


def _relist(state: _State) -> None:
    """Pick up tasks and teams that appeared or disappeared."""
    task_ids, team_names = _list(state)
    for task_id in set(task_ids) - set(state.tasks):
        _open_log(state, state.ws.events_file(task_id), f"task {task_id}", NEW_LOG_TAIL, event=True)
        _read_task(state, task_id)
        _read_verdicts(state, task_id)
    for task_id in set(state.tasks) - set(task_ids):
        _drop_task(state, task_id)
    for team in set(team_names) - set(state.teams):
        _refresh_team(state, team, {"all"})
    for team in set(state.teams) - set(team_names):
        _refresh_team(state, team, {"all"})
    lists = set(_task_list_names(state))
    for team in lists - set(state.task_lists):
        state.task_lists[team] = read_task_list_files(state.ws, team)
    for team in set(state.task_lists) - lists:
        _drop_task_list(state, team)


def _read_task(state: _State, task_id: str, *, outputs_changed: bool = True) -> None:
    """Read the task again; its worker outputs too unless ``outputs_changed`` is False
    (then the outputs read before are kept, or the task's are left unchecked)."""
    ws = state.ws
    log = state.logs.get(str(ws.rel(ws.events_file(task_id))))
    last_id = log.rows[-1].id if log is not None and log.rows else None
    if outputs_changed:
        state.outputs[task_id] = read_outputs(ws, task_id)
        state.unchecked.discard(task_id)
    elif task_id not in state.outputs:
        state.unchecked.add(task_id)
    view = read_task(
        ws,
        task_id,
        last_event_id=last_id or None,
        previous=state.tasks.get(task_id),
        outputs=state.outputs.get(task_id),
        outputs_checked=task_id not in state.unchecked,
    )
    if view is None:
        _drop_task(state, task_id)
    else:
        state.tasks[task_id] = view


def _drop_task(state: _State, task_id: str) -> None:
    state.tasks.pop(task_id, None)
    state.outputs.pop(task_id, None)
    state.unchecked.discard(task_id)
    state.verdicts.pop(task_id, None)
    state.logs.pop(str(state.ws.rel(state.ws.events_file(task_id))), None)


def _read_verdicts(state: _State, task_id: str) -> None:
    if task_id not in state.tasks:
        state.verdicts.pop(task_id, None)
        return
    verdicts = read_verdicts(state.ws, task_id)
    if verdicts is None:
        state.verdicts.pop(task_id, None)
    else:
        state.verdicts[task_id] = verdicts


def _refresh_team(state: _State, team: str, parts: set[str]) -> bool:
    """Re-read the parts of a team that changed; returns whether its files changed."""
    ws = state.ws
    try:
        check_id(team, "team name")
    except InvalidId:
        return False
    files = state.teams.get(team)
    if files is None or "all" in parts:
        files = read_team_files(ws, team, files, state.shutdown_timeout)
    else:
        if files.shutdown_timeout != state.shutdown_timeout:
            files = replace(files, shutdown_timeout=state.shutdown_timeout)
        if "config" in parts:
            files = reread_config(ws, files)
        for part in parts:
            if files is not None and part.startswith("inbox:") and part.endswith(".json"):
                name = part[len("inbox:") :]
                try:
                    path = ws.inbox(team, name[: -len(".json")])
                except InvalidId:
                    continue
                files = reread_inbox(ws, files, path)
        if files is not None and "connections" in parts:
            files = reread_connections(ws, files)
        if files is not None and parts != {"connections"}:
            files = with_ledger(ws, files)
    if files is None:
        state.teams.pop(team, None)
        state.team_views.pop(team, None)
        state.team_gates.pop(team, None)
        state.logs.pop(str(ws.rel(ws.messages_log(team))), None)
        return True
    changed = state.teams.get(team) is not files
    state.teams[team] = files
    return changed


def _derive_teams(state: _State, changed: set[str], *, tasks_changed: bool) -> None:
    """Recompute the views of teams whose files, or whose members' gates, changed (who
    waits on a gate is worked out again only when a task may have changed)."""
    waiting = _waiting_members(state) if tasks_changed else state.waiting
    for team, files in state.teams.items():
        members = waiting.get(team, frozenset())
        if team in changed or team not in state.team_views or state.waiting.get(team, frozenset()) != members:
            state.team_views[team] = team_view(files, members, state.ws.clock())
            state.team_gates[team] = tuple(team_gates(files, state.team_views[team]))
    state.waiting = waiting


def _waiting_members(state: _State) -> dict[str, frozenset[str]]:
    """Per team, the members (lower-cased) whose worker waits on an open task gate."""
    waiting: dict[str, set[str]] = {}
    for task in state.tasks.values():
        if task.team is None:
            continue
        members = {worker.id: worker.member for worker in task.workers}
        for gate in task.open_gates:
            member = members.get(gate.agent or "")
            if member:
                waiting.setdefault(task.team, set()).add(member.lower())
    return {team: frozenset(names) for team, names in waiting.items()}


# --- Claude Code task lists ---------------------------------------------------------------


def _task_list_names(state: _State) -> list[str]:
    """The teams (read into ``state.teams``) whose ``tasks/<team>/`` is a Claude Code
    task list; a list whose name is no team is not shown (a solo session's)."""
    return [team for team in sorted(state.teams) if task_dir_kind(state.ws.tasks_dir / team) == "claude"]


def _refresh_task_list(state: _State, name: str, changed: set[str]) -> None:
    """Re-read what changed of ``tasks/<name>/`` if it is (or was) a team's task list."""
    known = state.task_lists.get(name)
    if name not in state.teams:
        _drop_task_list(state, name)
        return
    if task_dir_kind(state.ws.tasks_dir / name) != "claude":
        _drop_task_list(state, name)
        return
    if known is None:
        state.task_lists[name] = read_task_list_files(state.ws, name)
    else:
        state.task_lists[name] = reread_task_files(state.ws, known, changed - {"all"})


def _drop_task_list(state: _State, team: str) -> None:
    state.task_lists.pop(team, None)
    state.task_list_views.pop(team, None)


def _derive_task_lists(state: _State) -> bool:
    """Derive every task list's view again (the clock and the rosters decide which
    tasks are stalled); returns whether any view changed."""
    now = state.ws.clock()
    changed = False
    for team in set(state.task_list_views) - set(state.task_lists):
        del state.task_list_views[team]
        changed = True
    for team, files in state.task_lists.items():
        previous = state.task_list_views.get(team)
        view = task_list_view(
            state.ws, files, state.team_views.get(team), now=now, stalled_after=state.stalled_after, previous=previous
        )
        changed |= view is not previous
        state.task_list_views[team] = view
    return changed


# --- event logs --------------------------------------------------------------------------


def _open_log(state: _State, path: Path, source: str, tail_lines: int, *, event: bool) -> LogSource:
    rel = str(state.ws.rel(path))
    log = state.logs.get(rel)
    if log is None:
        log = LogSource(path, rel, source, event_row if event else message_row, tail_lines)
        state.logs[rel] = log
    return log


def _advance(log: LogSource, new_rows: list[EventRow]) -> bool:
    """Read what was appended to ``log`` into ``new_rows``; True when the log was
    replaced and the merged tail must be rebuilt."""
    generation = log.generation
    rows = log.read_new()
    if log.generation != generation:
        return True
    new_rows.extend(rows)
    return False


def _take_notice(log: LogSource) -> str | None:
    notice, log.notice = log.notice, None
    return notice


def _merge_all(state: _State, limit: int = MAX_EVENTS) -> tuple[EventRow, ...]:
    rows = sorted((row for log in state.logs.values() for row in log.rows), key=_order)
    return tuple(rows[-max(limit, MAX_EVENTS) :])


def _merge(current: tuple[EventRow, ...], new: list[EventRow]) -> tuple[EventRow, ...]:
    new.sort(key=_order)
    if not current or _order(new[0]) >= _order(current[-1]):
        rows = current + tuple(new)
    else:
        rows = tuple(sorted((*current, *new), key=_order))
    return rows[-MAX_EVENTS:] if len(rows) > MAX_EVENTS else rows


def _order(row: EventRow) -> tuple[datetime, str]:
    return (_moment(row.ts), row.id)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@functools.lru_cache(maxsize=16384)
def _moment(text: str) -> datetime:
    """``text`` as a time for ordering (the epoch when it is none); cached: every refresh
    orders all the open gates and the events' tail by the same few thousand stamps."""
    try:
        return parse_iso(text)
    except (ValueError, TypeError):
        return _EPOCH


# --- the snapshot -----------------------------------------------------------------------


def _snapshot(state: _State, rows: tuple[EventRow, ...], notices: tuple[str, ...]) -> WorkspaceSnapshot:
    tasks = tuple(state.tasks[task_id] for task_id in sorted(state.tasks))
    teams = tuple(state.team_views[name] for name in sorted(state.team_views))
    team_gates = tuple(state.team_gates[name] for name in sorted(state.team_gates))
    gates = _derived(state, "gates", (*tasks, *team_gates), lambda: _gate_queue(tasks, team_gates))
    return WorkspaceSnapshot(
        root=str(state.ws.root),
        taken_at=state.ws.clock(),
        teams=teams,
        tasks=tasks,
        gates=gates,
        events=rows,
        events_complete=all(log.complete for log in state.logs.values()) and len(rows) < MAX_EVENTS,
        problems=_problems(state, tasks, teams),
        notices=notices,
        read_only=state.read_only,
        read_only_reason=state.read_only_reason,
        auto_join=state.auto_join,
        plans=tuple(state.plans[plan_id] for plan_id in sorted(state.plans)),
        verdicts=state.verdicts,
        issues=state.issues,
        issue_problems=state.issue_problems,
        team_tasks=tuple(state.task_list_views[team] for team in sorted(state.task_list_views)),
        state=state,
    )


def _gate_queue(tasks: tuple[TaskView, ...], team_gates: tuple[tuple[GateView, ...], ...]) -> tuple[GateView, ...]:
    """Every open gate of the tasks and teams, oldest first."""
    gates = [gate for task in tasks for gate in task.open_gates]
    for gates_of_team in team_gates:
        gates += gates_of_team
    gates.sort(key=lambda gate: (_moment(gate.created_at), gate.key))
    return tuple(gates)


def _problems(state: _State, tasks: tuple[TaskView, ...], teams: tuple[TeamView, ...]) -> tuple[Problem, ...]:
    problems = list(state.listing_problems)
    if state.settings_problem is not None:
        problems.append(state.settings_problem)
    problems += _derived(state, "task problems", tasks, lambda: _task_problems(tasks))
    files = tuple(state.teams.values())
    problems += _derived(state, "team problems", (*teams, *files), lambda: _team_problems(state.ws, teams, files))
    for log in state.logs.values():
        problems += [Problem.of(problem) for problem in log.problems]
    problems += [Problem(f"plans/{plan.id}", "", plan.problem) for plan in state.plans.values() if plan.problem]
    for verdicts in state.verdicts.values():
        problems += [Problem(f"tasks/{verdicts.task_id}/guardian", "", line) for line in verdicts.problems]
    for name in sorted(state.task_list_views):
        problems += state.task_list_views[name].problems
    return tuple(problems)


def _task_problems(tasks: tuple[TaskView, ...]) -> tuple[Problem, ...]:
    problems = []
    for task in tasks:
        if task.problem is not None:
            problems.append(task.problem)
        for worker in task.workers:
            problems += [Problem(f"tasks/{task.id}", "", line) for line in worker.problems]
    return tuple(problems)


def _team_problems(ws: Workspace, teams: tuple[TeamView, ...], files: tuple[TeamFiles, ...]) -> tuple[Problem, ...]:
    problems = [team.problem for team in teams if team.problem is not None]
    for team_files in files:
        problems += inbox_problems(ws, team_files)
    return tuple(problems)


def _derived(state: _State, name: str, inputs: tuple[object, ...], derive: Callable[[], _T]) -> _T:
    """``derive()``, or the value it gave last time if ``inputs`` are the very objects
    it was derived from then. The views and files in the state are immutable and
    replaced when their file changes, so the same objects mean the same value: one
    inbox change does not sort the whole gate queue again or walk every task's
    problems (each a few tenths of a millisecond per change at 200 tasks)."""
    kept = state.derived.get(name)
    if kept is not None and same_items(inputs, kept[0]):
        return cast(_T, kept[1])
    value = derive()
    state.derived[name] = (inputs, value)
    return value
