"""Making a :class:`WorkspaceSnapshot` from disk, and the next one from a batch of
changed paths.

:func:`build_snapshot` reads everything once (event logs tail-first). :func:`refresh`
maps each changed path to what it belongs to - one task, one team's config or inbox,
an event log, the settings - re-reads only that, and derives the rest (decision queue,
member statuses, problems) in memory. Refreshing with paths that did not change gives
an equal snapshot: our own writes come back through the watcher harmlessly.
:func:`retime` is the one refresh no file asks for: time passing makes a shutdown
request overdue, so the live view calls it now and then.

The snapshot carries the refresher's private state (what was read, and the event log
readers, which advance); always refresh the newest snapshot. One thread at a time.

This module reads; the rest of the refresh is in its own modules: what a changed path
belongs to (changes.py), the state kept between refreshes (read_state.py), the merged
events tail (log_merge.py) and the snapshot made from the state (assemble.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from teamdeck.errors import TeamdeckError
from teamdeck.formats import registry as team_formats
from teamdeck.formats.registry import task_dir_kind
from teamdeck.protocol.team.archive import archived_teams
from teamdeck.protocol.team.session_log import read_log, session_teams
from teamdeck.runtime.config import load_agents
from teamdeck.store.files import list_entries
from teamdeck.store.paths import InvalidId, check_id, check_team
from teamdeck.store.settings import load_settings
from teamdeck.store.workspace import SETTINGS_FILE, Workspace, read_only_mount
from teamdeck.view.readers.issues import read_issue_tree
from teamdeck.view.readers.outbox import failed_deliveries
from teamdeck.view.readers.plans import read_plans, read_verdicts, update_plans
from teamdeck.view.readers.runs import all_runs, member_runs, run_state, runner_decisions
from teamdeck.view.readers.sessions import last_events, session_decisions, with_session_events
from teamdeck.view.readers.tasks import read_outputs, read_task
from teamdeck.view.readers.team_decisions import team_decisions
from teamdeck.view.readers.team_files import (
    read_team_files,
    reread_config,
    reread_connections,
    reread_inbox,
    with_ledger,
)
from teamdeck.view.readers.team_roster import Runner, connected, team_view
from teamdeck.view.readers.team_tasks import read_task_list_files
from teamdeck.view.refresh.assemble import snapshot_of
from teamdeck.view.refresh.changes import classify
from teamdeck.view.refresh.gate_members import gate_members
from teamdeck.view.refresh.log_merge import advance, merge, merge_all, open_log, take_notice
from teamdeck.view.refresh.read_state import ReadState
from teamdeck.view.refresh.task_list_state import derive_task_lists, drop_task_list, refresh_task_list, task_list_names
from teamdeck.view.snapshot.events import EventRow
from teamdeck.view.snapshot.workspace import (
    Problem,
    WorkspaceSnapshot,
)

TAIL_BUDGET = 1000
"""Log lines read at start over all logs together (each log gets its share)."""
MIN_TAIL = 5
"""Lines read at start from each log, however many logs there are."""
NEW_LOG_TAIL = 50
"""Lines read from a log that appears while the app runs."""


def build_snapshot(
    ws: Workspace, *, tail_budget: int = TAIL_BUDGET, check_outputs: bool = True, record: bool = False
) -> WorkspaceSnapshot:
    """Read the whole workspace into a snapshot.

    Args:
        ws: the workspace (its clock stamps the snapshot; its read-only flag shows).
        tail_budget: log lines to read at start over all logs (see :data:`TAIL_BUDGET`).
        check_outputs: read and check the workers' final.json files. False leaves every
            task's workers ``checking`` until :func:`check_outputs`:
            the TUI draws its first frame without them, since checking them (jsonschema's
            import and validator included) was a twelfth of a start and panel 1 does
            not show them.
        record: keep every inbox message read in teamdeck's record (the live view,
            whose refreshes then record too; protocol/team/observed.py).

    Returns:
        The snapshot; files that could not be read are in its ``problems``.
    """
    state = ReadState(ws, record=record)
    _load_settings(state)
    task_ids, team_names = _list(state)
    sources = len(task_ids) + len(team_names)
    per_log = max(MIN_TAIL, tail_budget // max(1, sources))
    for task_id in task_ids:
        open_log(state, ws.events_file(task_id), f"task {task_id}", per_log, event=True)
        _read_task(state, task_id, outputs_changed=check_outputs)
    for team in team_names:
        open_log(state, team_formats.log_file(ws, team), f"team {team}", per_log, event=False)
        files = read_team_files(ws, team, shutdown_timeout=state.shutdown_timeout, record=state.record)
        if files is not None:
            state.teams[team] = files
    _read_runs(state)
    _derive_teams(state, set(state.teams), tasks_changed=True)
    for team in task_list_names(state):
        state.task_lists[team] = read_task_list_files(ws, team)
    derive_task_lists(state)
    state.plans = read_plans(ws)
    state.issues, state.issue_problems = read_issue_tree(ws)
    state.forge_decisions = failed_deliveries(ws)
    _read_sessions(state, session_teams(ws), per_log, None)
    _annotate_sessions(state)
    for task_id in state.tasks:
        _read_verdicts(state, task_id)
    rows = merge_all(state)
    return snapshot_of(state, rows, ())


def with_state(snapshot: WorkspaceSnapshot, state: ReadState) -> WorkspaceSnapshot:
    """``snapshot``, sent without its refresher state (tui/first_read.py), with it again:
    ``state`` must be the one it was made from (the refreshes start from it)."""
    return replace(snapshot, state=state)


def check_outputs(snapshot: WorkspaceSnapshot, tasks: int | None = None) -> WorkspaceSnapshot:
    """The snapshot with the worker outputs that :func:`build_snapshot` left unchecked
    read and checked (the same snapshot when there are none): all of them, or those of
    the first ``tasks`` tasks still unchecked (:func:`unchecked_outputs` says how many
    are left)."""
    state = snapshot.state
    if not state.unchecked:
        return snapshot
    task_ids = sorted(state.unchecked)[:tasks]
    return refresh(snapshot, [state.ws.agents_dir(task_id) for task_id in task_ids])


def unchecked_outputs(snapshot: WorkspaceSnapshot) -> int:
    """How many tasks' worker outputs :func:`check_outputs` has not checked yet."""
    return len(snapshot.state.unchecked)


def refresh(snapshot: WorkspaceSnapshot, changed: Iterable[Path]) -> WorkspaceSnapshot:
    """The snapshot after the files at ``changed`` changed (were added, modified or
    removed).

    Args:
        snapshot: the newest snapshot (made by :func:`build_snapshot` or this).
        changed: absolute paths; anything outside the workspace is ignored.

    Returns:
        A new snapshot (equal to ``snapshot`` when nothing it shows changed), or
        ``snapshot`` itself when no changed path is one a snapshot is read from: the
        live view's own record of observed messages comes back through the watcher
        after every inbox change, and must not cost a second refresh and frame.
    """
    work = classify(snapshot.state.ws.root, changed)
    if work.empty:
        return snapshot
    state: ReadState = snapshot.state.copy()
    ws = state.ws
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
        log = open_log(state, ws.events_file(task_id), f"task {task_id}", NEW_LOG_TAIL, event=True)
        rebuild |= advance(log, new_rows)
        _read_task(state, task_id, outputs_changed=task_id in work.outputs)
    teams_changed = set()
    for team, parts in sorted(work.teams.items()):
        if _refresh_team(state, team, parts):
            teams_changed.add(team)
        if team in state.teams:
            log = open_log(state, team_formats.log_file(ws, team), f"team {team}", NEW_LOG_TAIL, event=False)
            rebuild |= advance(log, new_rows)
    if work.runs or work.relist:
        _read_runs(state, None if work.relist or "*" in work.runs else work.runs)
    ran = set(state.teams) if work.settings or work.relist or "*" in work.runs else _teams_of(work.runs)
    _derive_teams(state, teams_changed, tasks_changed=bool(work.tasks) or work.relist, ran=ran)
    for team in teams_changed:  # a team that appeared or went: its task list with it
        if (team in state.teams) != (team in state.task_lists):
            work.task_lists.setdefault(team, set()).add("all")
    for team, names in sorted(work.task_lists.items()):
        refresh_task_list(state, team, names)
    derive_task_lists(state)
    for task_id in work.verdicts:
        _read_verdicts(state, task_id)
    update_plans(ws, state.plans, work.plans, work.tasks, relist=work.relist or work.relist_plans)
    if work.forge or work.relist:
        state.issues, state.issue_problems = read_issue_tree(ws)
        state.forge_decisions = failed_deliveries(ws)
    if work.sessions or teams_changed:
        rebuild |= _read_sessions(state, sorted(work.sessions), NEW_LOG_TAIL, new_rows)
    _annotate_sessions(state)
    notices = tuple(notice for log in state.logs.values() if (notice := take_notice(log)))
    if rebuild:
        rows = merge_all(state)
    elif new_rows:
        rows = merge(state.log_rows, new_rows)
    else:
        rows = state.log_rows
    return snapshot_of(state, rows, notices)


def retime(snapshot: WorkspaceSnapshot) -> WorkspaceSnapshot:
    """The snapshot as of the workspace clock now, for what time alone changes (a live
    front calls this now and then, since the passing of time changes no file): teams
    with a shutdown request still awaiting its reply within the timeout get their
    ledger built again (it may be overdue by now), teams where an MCP heartbeat went
    stale are shown again (a server killed without removing its file), and the team
    task lists are derived again (a task whose owner stays idle becomes stalled). The
    same snapshot when nothing it shows changed."""
    state: ReadState = snapshot.state.copy()
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
        _derive_teams(state, changed, tasks_changed=False, ran=set())
    if not derive_task_lists(state) and not changed:
        return snapshot
    return snapshot_of(state, state.log_rows, ())


def load_older(snapshot: WorkspaceSnapshot, count: int = 1000) -> WorkspaceSnapshot:
    """The snapshot with up to ``count`` more older lines loaded from each log that is
    not loaded completely (the events view asks when scrolled to its top)."""
    state: ReadState = snapshot.state.copy()
    for log in state.logs.values():
        log.load_older(count)
    return snapshot_of(state, merge_all(state, limit=len(state.log_rows) + count), ())


# --- reading ---------------------------------------------------------------------------


def _load_settings(state: ReadState) -> None:
    ws = state.ws
    _load_agents(state)
    try:
        settings = load_settings(ws.root)
        state.settings_problem = None
    except TeamdeckError as err:
        state.settings_problem = Problem.of(err, SETTINGS_FILE)
        return
    state.auto_join = settings.autoJoin
    state.shutdown_timeout = timedelta(seconds=settings.shutdownTimeoutSeconds)
    state.stalled_after = settings.stalledAfterSeconds
    state.stale_after = timedelta(seconds=settings.staleAfterSeconds)
    state.hide_ended = settings.hideEndedTeams
    if ws.read_only:
        state.read_only, state.read_only_reason = True, ws.read_only_reason or "read-only mode"
    elif settings.readOnly:
        state.read_only, state.read_only_reason = True, f"readOnly in {SETTINGS_FILE}"
    elif mounted := read_only_mount(ws.root):
        state.read_only, state.read_only_reason = True, mounted  # F7: the TUI opens read-only
    else:
        state.read_only, state.read_only_reason = False, ""


def _load_agents(state: ReadState) -> None:
    """``agents:`` (who ``teamdeck run`` runs): a mistake in it is a problem of the
    snapshot and runs nobody, as the runner refuses to start on it."""
    try:
        state.agents, state.agents_problem = load_agents(state.ws.root), None
    except TeamdeckError as err:
        state.agents, state.agents_problem = None, Problem.of(err, SETTINGS_FILE)


def _read_sessions(state: ReadState, teams: list[str], tail_lines: int, new_rows: list[EventRow] | None) -> bool:
    """Tail the session logs of ``teams`` (view/readers/sessions.py: opened only, at the first
    build; read into ``new_rows`` after) and rebuild the queue's session prompts;
    returns whether the events tail must be merged again."""
    rebuild = False
    for team in teams:
        try:
            path = state.ws.session_log(team)
        except InvalidId:
            continue
        log = open_log(state, path, f"session {team}", tail_lines, event=True)
        if new_rows is not None:
            rebuild |= advance(log, new_rows)
        state.session_events[team] = last_events(read_log(state.ws, team))
    all_team_decisions = [decision for decisions in state.team_decisions.values() for decision in decisions]
    state.session_decisions = session_decisions(state.ws, all_team_decisions)
    return rebuild


def _annotate_sessions(state: ReadState) -> None:
    """Each member's last hook event on the roster (a view is replaced only when it changes)."""
    for team, events in state.session_events.items():
        view = state.team_views.get(team)
        if view is not None:
            state.team_views[team] = with_session_events(view, events)


def _list(state: ReadState) -> tuple[list[str], list[str]]:
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
    team_names, ignored = team_formats.team_names(ws)
    ended = (team for team in archived_teams(ws) if not team_formats.team_format(ws, team).has_team(ws, team))
    team_names = sorted({*team_names, *ended})
    problems += [Problem("teams", "", line) for line in ignored]
    state.listing_problems = tuple(problems)
    return task_ids, team_names


def _is_task(ws: Workspace, name: str) -> bool:
    try:
        check_id(name, "task id")
    except InvalidId:
        return False
    return task_dir_kind(ws.tasks_dir / name) == "teamdeck"


def _relist(state: ReadState) -> None:
    """Pick up tasks and teams that appeared or disappeared."""
    task_ids, team_names = _list(state)
    for task_id in set(task_ids) - set(state.tasks):
        open_log(state, state.ws.events_file(task_id), f"task {task_id}", NEW_LOG_TAIL, event=True)
        _read_task(state, task_id)
        _read_verdicts(state, task_id)
    for task_id in set(state.tasks) - set(task_ids):
        _drop_task(state, task_id)
    for team in set(team_names) - set(state.teams):
        _refresh_team(state, team, {"all"})
    for team in set(state.teams) - set(team_names):
        _refresh_team(state, team, {"all"})
    lists = set(task_list_names(state))
    for team in lists - set(state.task_lists):
        state.task_lists[team] = read_task_list_files(state.ws, team)
    for team in set(state.task_lists) - lists:
        drop_task_list(state, team)


def _read_task(state: ReadState, task_id: str, *, outputs_changed: bool = True) -> None:
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


def _drop_task(state: ReadState, task_id: str) -> None:
    state.tasks.pop(task_id, None)
    state.outputs.pop(task_id, None)
    state.unchecked.discard(task_id)
    state.verdicts.pop(task_id, None)
    state.logs.pop(str(state.ws.rel(state.ws.events_file(task_id))), None)


def _read_runs(state: ReadState, changed: set[str] | None = None) -> None:
    """Read the members' runs and the runner's open decisions into ``state``: every
    member's (``changed`` None), or only those of ``changed`` (``team/member``; the
    decisions when it holds ``decisions``)."""
    if changed is None:
        state.runs = {f"{runs.team}/{runs.member}": runs for runs in all_runs(state.ws)}
        state.runner_decisions = runner_decisions(state.ws)
        return
    for key in changed - {"decisions"}:
        team, _, member = key.partition("/")
        try:
            state.runs[key] = member_runs(state.ws, team, member)
        except TeamdeckError:
            state.runs.pop(key, None)
    if "decisions" in changed:
        state.runner_decisions = runner_decisions(state.ws)


def _teams_of(keys: set[str]) -> set[str]:
    """The teams of the ``team/member`` keys whose runs changed."""
    return {key.partition("/")[0] for key in keys if "/" in key}


def _run_by(state: ReadState, team: str) -> dict[str, Runner]:
    """The members of ``team`` an ``agents:`` entry names (lower-cased) -> their run state
    and configured model; empty when nobody of the team is run."""
    files = state.teams.get(team)
    config = files.config if files is not None else None
    agents = state.agents
    if agents is None or config is None:
        return {}
    now = state.ws.clock()
    lead = config.lead_name
    runners = {}
    for member in config.members:
        if agents.names(team, member.name, lead=lead):
            model = agents.option(team, member.name, "model", lead=lead)
            runs = run_state(state.runs.get(f"{team}/{member.name}"), now)
            runners[member.name.lower()] = Runner(runs, model if isinstance(model, str) else None)
    return runners


def _read_verdicts(state: ReadState, task_id: str) -> None:
    if task_id not in state.tasks:
        state.verdicts.pop(task_id, None)
        return
    verdicts = read_verdicts(state.ws, task_id)
    if verdicts is None:
        state.verdicts.pop(task_id, None)
    else:
        state.verdicts[task_id] = verdicts


def _refresh_team(state: ReadState, team: str, parts: set[str]) -> bool:
    """Re-read the parts of a team that changed; returns whether its files changed."""
    ws = state.ws
    try:
        check_team(team)
    except InvalidId:
        return False
    files = state.teams.get(team)
    if files is None or "all" in parts:
        files = read_team_files(ws, team, files, state.shutdown_timeout, record=state.record)
    else:
        if files.shutdown_timeout != state.shutdown_timeout:
            files = replace(files, shutdown_timeout=state.shutdown_timeout)
        if "config" in parts:
            files = reread_config(ws, files)
        for part in parts:
            if files is not None and part.startswith("inbox:"):
                try:
                    path = team_formats.team_format(ws, team).inbox(ws, team, part[len("inbox:") :])
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
        state.team_decisions.pop(team, None)
        state.logs.pop(str(ws.rel(team_formats.log_file(ws, team))), None)
        return True
    changed = state.teams.get(team) is not files
    state.teams[team] = files
    return changed


def _derive_teams(state: ReadState, changed: set[str], *, tasks_changed: bool, ran: set[str] | None = None) -> None:
    """Recompute the views of teams whose files, or whose members' gates or runs, changed
    (who waits on a gate, and who a stall decision is about, is worked out again only
    when a task may have changed; who the runner runs and how its runs stand, for the
    teams in ``changed`` and ``ran``: None, every team)."""
    waiting, stalled = gate_members(state) if tasks_changed else (state.waiting, state.stalled)
    for team, files in state.teams.items():
        members = waiting.get(team, frozenset())
        stalls = stalled.get(team, frozenset())
        run_by = _run_by(state, team) if ran is None or team in ran or team in changed else state.run_by.get(team, {})
        if (
            team in changed
            or team not in state.team_views
            or state.waiting.get(team, frozenset()) != members
            or state.stalled.get(team, frozenset()) != stalls
            or state.run_by.get(team, {}) != run_by
        ):
            state.team_views[team] = team_view(files, members, state.ws.clock(), stalled=dict(stalls), run_by=run_by)
            state.team_decisions[team] = tuple(team_decisions(files, state.team_views[team]))
        state.run_by[team] = run_by
    state.waiting = waiting
    state.stalled = stalled


# --- Claude Code task lists ---------------------------------------------------------------
