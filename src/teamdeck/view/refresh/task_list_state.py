"""The Claude Code task lists kept in the read state: which ``tasks/<team>/`` are shown,
re-reading what changed of one, and deriving their views again (split out of
view/refresh/build.py, which calls these on each build and refresh)."""

from __future__ import annotations

from teamdeck.errors import TeamdeckError
from teamdeck.formats.registry import task_dir_kind
from teamdeck.protocol.team.archive import SESSION_TEAM
from teamdeck.store.files import list_entries
from teamdeck.view.readers.team_tasks import read_task_list_files, reread_task_files, task_list_view
from teamdeck.view.refresh.read_state import ReadState


def task_list_names(state: ReadState) -> list[str]:
    """The Claude Code task lists shown: ``tasks/<team>/`` of each team read into
    ``state.teams`` (an ended one too), and each ``tasks/session-<8 hex>/`` whose team
    is gone (Claude Code 2.1.332 keeps it when it removes the session's team); any
    other list whose name is no team is not shown (a solo session's)."""
    names = set(state.teams)
    try:
        names |= {entry.name for entry in list_entries(state.ws.tasks_dir) if SESSION_TEAM.fullmatch(entry.name)}
    except TeamdeckError:
        pass  # the listing problem is reported by _list
    return [name for name in sorted(names) if task_dir_kind(state.ws.tasks_dir / name) == "task-list"]


def refresh_task_list(state: ReadState, name: str, changed: set[str]) -> None:
    """Re-read what changed of ``tasks/<name>/`` if it is (or was) a team's task list."""
    known = state.task_lists.get(name)
    if name not in state.teams and not SESSION_TEAM.fullmatch(name):
        drop_task_list(state, name)
        return
    if task_dir_kind(state.ws.tasks_dir / name) != "task-list":
        drop_task_list(state, name)
        return
    if known is None:
        state.task_lists[name] = read_task_list_files(state.ws, name)
    else:
        state.task_lists[name] = reread_task_files(state.ws, known, changed - {"all"})


def drop_task_list(state: ReadState, team: str) -> None:
    state.task_lists.pop(team, None)
    state.task_list_views.pop(team, None)


def derive_task_lists(state: ReadState) -> bool:
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
