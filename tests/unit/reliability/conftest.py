"""What the file-safety tests here share: a team and a task with a gate, written by the
protocol as agents and people would (a test file with another world defines its own)."""

from __future__ import annotations

import pytest

from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace


@pytest.fixture
def world(ws: Workspace) -> Workspace:
    """Team alpha (lead, bob) with one message to bob; task t1 with a blocked worker's gate."""
    create_team(ws, "alpha")
    add_member(ws, "alpha", "bob")
    send_message(ws, "alpha", "bob", "first", summary="first")
    create_task(ws, "t1", "Build it", team="alpha")
    write_final_output(ws, "t1", "w1", {"status": "blocked", "summary": "stuck", "questions": ["Which way?"]})
    join_task(ws, "t1")
    return ws
