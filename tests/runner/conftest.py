"""Fixtures of the runner tests: ``world(members, **defaults)`` builds a :class:`World`
and stops its runner (and every agent it left) at the end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.runner_world import World


@pytest.fixture
def world(tmp_path: Path) -> Iterator:
    made: list[World] = []

    def make(members: list[str], agents: dict | None = None, **defaults: object) -> World:
        built = World(tmp_path / f"ws{len(made)}", members, agents, **defaults)
        made.append(built)
        return built

    yield make
    for built in made:
        built.stop()
