"""Creating tasks."""

from __future__ import annotations

from teamdeck.errors import Refused
from teamdeck.formats.registry import team_format
from teamdeck.model.event import Event
from teamdeck.model.task import Task, TaskState
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.task.taskfile import TaskChange, transact
from teamdeck.store.files import ensure_dir
from teamdeck.store.paths import check_id, check_team
from teamdeck.store.workspace import Workspace

INITIAL_STATE: TaskState = "working"
"""A task made by hand starts ``working``: its workers may write outputs at once.
Tasks imported from a coordinator plan start ``planned`` instead."""


def create_task(
    ws: Workspace,
    task_id: str,
    title: str,
    *,
    team: str | None = None,
    state: TaskState = INITIAL_STATE,
    extra: dict[str, object] | None = None,
) -> TaskChange:
    """Create ``tasks/<task_id>/`` with task.yaml, events.jsonl (``task.created``) and
    the ``agents/`` and ``shared/reports/`` directories.

    Raises:
        InvalidId: the task id or team name is not allowed.
        Refused: the task already exists, or a team has its name: ``tasks/<team>/`` is
            that team's Claude Code task list, which a task there would hide.
    """
    check_id(task_id, "task id")
    if ws.team_dir(task_id).is_dir():
        raise Refused(
            f"Could not create task '{task_id}': team '{task_id}' exists and "
            f"{ws.rel(team_format(ws, task_id).task_list_dir(ws, task_id))} "
            "is its task list; choose another task id"
        )
    if team is not None:
        check_team(team)
    if not title.strip():
        raise Refused("Could not create the task: the title is empty")

    def decide(_current: Task | None) -> list[Event]:
        # createdAt/updatedAt/revision are set from the event when it is applied.
        task = {
            "id": task_id,
            "title": title,
            "state": state,
            "gates": [],
            "team": team,
            "creator": ws.actor,
            "workers": [],
            **(extra or {}),
        }
        return [new_event(ws, "task.created", {"task": task})]

    change = transact(ws, task_id, decide, action=f"create task '{task_id}'", create=True)
    ensure_dir(ws.agents_dir(task_id))
    ensure_dir(ws.reports_dir(task_id))
    return change
