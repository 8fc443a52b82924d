"""Files agents write themselves: a worker's ``final.json``.

A worker agent is not teamdeck: it writes its structured output straight into the
task directory when it stops (spec 000), and teamdeck's join picks it up. The demo's
agents and the demo-workspace generator write it through this module so it looks
exactly like a well-behaved agent's (pretty JSON, replaced atomically so a watcher
never reads half a file). A Claude Code task file, which Claude Code's task tools
write, is written by formats/claude_code/tasks.py ``write_task_file``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from teamdeck.errors import TeamdeckError
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
