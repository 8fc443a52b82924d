"""A workspace for CLI tests: a copy of demo-workspace/ when it exists (else an empty
directory), plus tasks the tests create through the CLI and outputs they write the way
an agent would."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml

DEMO = Path(__file__).resolve().parents[3] / "demo-workspace"


def world(tmp_path: Path) -> Path:
    """A fresh workspace directory (demo copy when available)."""
    root = tmp_path / "ws"
    if DEMO.is_dir():
        shutil.copytree(DEMO, root, symlinks=True)
    else:
        root.mkdir()
    return root


def make_task(run_cli, root: Path, task_id: str) -> None:
    result = run_cli(root, "task", "create", task_id, "--title", f"Task {task_id}")
    assert result.code == 0, result.err


def write_output(root: Path, task_id: str, agent: str, data: dict[str, Any] | str) -> Path:
    folder = root / "tasks" / task_id / "agents" / agent / "artifacts"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "final.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False))
    return path


def task_yaml(root: Path, task_id: str) -> dict[str, Any]:
    return yaml.safe_load((root / "tasks" / task_id / "task.yaml").read_text())


def events(root: Path, task_id: str) -> list[dict[str, Any]]:
    lines = (root / "tasks" / task_id / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def no_traceback(*texts: str) -> bool:
    return not any("Traceback" in text for text in texts)
