"""Files agents write themselves: a worker's ``final.json``, a Claude Code task file.

A worker agent is not teamdeck: it writes its structured output straight into the
task directory when it stops (spec 000), and teamdeck's join picks it up; Claude Code's
task tools write the team's task list. The demo's agents and the demo-workspace
generator write these files through this module so they look exactly like a
well-behaved agent's (pretty JSON, replaced atomically so a watcher never reads half a
file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from teamdeck.errors import TeamdeckError
from teamdeck.formats.claude_code.json_files import encode_pretty
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.files import read_optional
from teamdeck.store.loaders import dumps_json, parse_json
from teamdeck.store.workspace import Workspace


def write_final_output(ws: Workspace, task_id: str, agent_id: str, output: dict[str, Any]) -> Path:
    """Write ``agents/<agent_id>/artifacts/final.json`` of ``task_id`` as an agent would.

    ``output`` is written as given, valid or not: the demo needs one invalid output,
    and checking is the join's job, not the writer's.

    Args:
        ws: the workspace.
        task_id: the task the worker works on.
        agent_id: the worker's id (its directory under ``agents/``).
        output: the JSON object to write.

    Returns:
        The path written.

    Raises:
        InvalidId: a bad task or agent id.
        WriteFailed: the disk refused.
    """
    path = ws.final_output(task_id, agent_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_replace(path, (dumps_json(output, indent=2) + "\n").encode("utf-8"), crash_prefix="final")
    return path


def write_claude_task(ws: Workspace, team: str, task: dict[str, Any]) -> Path:
    """Write ``tasks/<team>/<id>.json`` of a team's task list as Claude Code's TaskCreate
    and TaskUpdate tools do (the whole file, 2-space JSON).

    Raises:
        InvalidId: a bad team name; ValueError: an id that is not a number.
        WriteFailed: the disk refused.
    """
    task_id = str(task["id"])
    if not task_id.isdigit():
        raise ValueError(f"Claude Code task ids are numbers, not '{task_id}'")
    path = ws.claude_tasks_dir(team) / f"{task_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_replace(path, encode_pretty(task), crash_prefix="claude-task")
    return path


def output_status(ws: Workspace, task_id: str, agent_id: str) -> str | None:
    """The ``status`` a worker's final.json states (whatever it is), ``"unreadable"``,
    or None when it has written none. Full validation is the join's job; a worker only
    needs to know what it said last."""
    path = ws.final_output(task_id, agent_id)
    try:
        data = read_optional(path)
        if data is None:
            return None
        value = parse_json(data, ws.rel(path))
    except TeamdeckError:
        return "unreadable"
    status = value.get("status") if isinstance(value, dict) else None
    return status if isinstance(status, str) else "unreadable"
