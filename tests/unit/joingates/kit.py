"""Building small workspaces for the join and gate tests."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from teamdeck.protocol.task.create import create_task
from teamdeck.store.workspace import Workspace


def new_task(ws: Workspace, task_id: str = "t1", title: str = "A task") -> str:
    """Create a task (state ``working``) and return its id."""
    create_task(ws, task_id, title)
    return task_id


def write_output(ws: Workspace, task_id: str, agent: str, data: dict[str, Any] | str | bytes) -> Path:
    """Write ``agents/<agent>/artifacts/final.json`` (a dict is dumped as JSON)."""
    folder = ws.task_dir(task_id) / "agents" / agent / "artifacts"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "final.json"
    if isinstance(data, dict):
        data = json.dumps(data, ensure_ascii=False)
    path.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    return path


def blocked(summary: str = "Need a decision", *questions: str) -> dict[str, Any]:
    return {"status": "blocked", "summary": summary, "questions": list(questions or ["Which database?"])}


def completed(summary: str = "Done", *next_actions: str) -> dict[str, Any]:
    return {"status": "completed", "summary": summary, "nextActions": list(next_actions)}


def files_state(root: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file under ``root`` except lock files: bytes, inode and mtime (ns), so a
    test can tell "unchanged" from "rewritten with the same bytes"."""
    state = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            if name.endswith(".lock"):
                continue
            path = Path(folder) / name
            info = path.lstat()
            state[str(path.relative_to(root))] = (path.read_bytes(), info.st_ino, info.st_mtime_ns)
    return state


def file_bytes(root: Path) -> dict[str, bytes]:
    """Every file's bytes under ``root`` except lock files."""
    return {name: data for name, (data, _ino, _mtime) in files_state(root).items()}
