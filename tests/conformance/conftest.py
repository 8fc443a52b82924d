"""Fixtures of the conformance tests: the pinned Claude Code against a scripted model.

- ``claude``: the installed pinned binary (skips without it; fails under CI=true).
- ``model``: a :class:`~scripted_model.ScriptedModel` on a free loopback port for the
  test, stopped after it; a script error fails the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from claude_code import binary
from scripted_model import ScriptedModel


@pytest.fixture
def claude() -> Path:
    return binary()


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as scripted:
        yield scripted
