"""Fixtures of the conformance tests: the pinned Claude Code against a scripted model.

- ``claude``: the installed pinned binary (skips without it; fails under CI=true).
- ``model``: a :class:`~support.scripted_model.ScriptedModel` on a free loopback port for the
  test, stopped after it; a script error fails the test, and so does a call of an
  endpoint it does not serve (a new Claude Code version says so here).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.claude_code import binary
from support.scripted_model import ScriptedModel


@pytest.fixture
def claude() -> Path:
    return binary()


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as scripted:
        yield scripted
    assert not scripted.unknown(), (
        f"Claude Code called endpoints the scripted model does not serve: {scripted.unknown()}"
    )
