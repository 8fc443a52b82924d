"""Fixtures every test layer shares, and the lanes.

- Each test carries the marker of the folder it is in (:data:`LANES`), so ``-m unit`` runs
  the unit lane (``make test-fast``) and ``-m "not conformance"`` leaves the pinned client
  out; a test outside those folders stops the run.

- ``clock`` / ``ws``: an empty workspace in tmp_path with a fixed clock.
- ``demo``: a fresh copy of demo-workspace/ (tests never write into the original).
- ``run_cli``: runs the real ``teamdeck`` CLI as a subprocess (``python -m teamdeck``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.locations import DEMO, FIXED_NOW

from teamdeck.clock import fixed_clock
from teamdeck.store.workspace import Workspace

LANES = ("unit", "tui", "e2e", "conformance", "runner")
"""The folders of tests/ that hold tests, each also the marker of the tests in it
(registered in pyproject.toml)."""


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = Path(__file__).parent
    for item in items:
        lane = item.path.relative_to(tests).parts[0]
        if lane not in LANES:
            raise pytest.UsageError(f"{item.nodeid}: a test lives in one of tests/{{{','.join(LANES)}}}")
        item.add_marker(lane)


@pytest.fixture
def clock():
    return fixed_clock(FIXED_NOW)


@pytest.fixture
def ws(tmp_path: Path, clock) -> Workspace:
    """An empty workspace with a fixed clock and a fixed actor."""
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace.at(root, clock=clock, actor="human:tester")


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    """A private copy of demo-workspace/."""
    target = tmp_path / "demo"
    shutil.copytree(DEMO, target, symlinks=True)
    return target


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    @property
    def json(self):
        return json.loads(self.out)


@pytest.fixture
def run_cli() -> Callable[..., CliResult]:
    """``run_cli(workspace, *args, env=None)`` runs ``teamdeck --workspace W args``."""

    def run(workspace: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> CliResult:
        full_env = {**os.environ, "TEAMDECK_WORKSPACE": "", **(env or {})}
        proc = subprocess.run(
            [sys.executable, "-m", "teamdeck", "--workspace", str(workspace), *args],
            capture_output=True,
            text=True,
            env=full_env,
            input=stdin,
            timeout=60,
        )
        return CliResult(proc.returncode, proc.stdout, proc.stderr)

    return run
