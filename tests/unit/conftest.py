"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest

from teamdeck.protocol.team.teams import add_member, create_team


@pytest.fixture
def team(ws):
    """``ws`` with team ``alpha``: the lead, Alice and bob."""
    create_team(ws, "alpha")
    for member in ("Alice", "bob"):
        add_member(ws, "alpha", member)
    return ws
