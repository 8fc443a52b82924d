"""Driving the TUI with Textual's Pilot: the fixtures (animations off, the captured team,
a small world). The helpers tests import by name are in
tests/support/pilot_helpers.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import small_worlds as worlds
from support.locations import FIXTURES

from teamdeck.store.workspace import Workspace


@pytest.fixture(autouse=True)
def _no_animations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEXTUAL_ANIMATIONS", "none")


@pytest.fixture
def capture(tmp_path: Path) -> Workspace:
    """A copy of the real Claude Code capture analysis-team (February 2026) on the real
    clock: months old, written by Claude Code itself, no teamdeck log."""
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "analysis-team", root)
    return Workspace.at(root, actor="human:tester")


@pytest.fixture
def world(ws: Workspace) -> Workspace:
    """Team alpha (lead, alice, bob), task t1 with a blocked worker, bob's plan request."""
    worlds.world(ws)
    worlds.plan_request(ws, "alpha", "bob")
    return ws
