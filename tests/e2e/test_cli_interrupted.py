"""F17 through the CLI, as the issue reproduced it: ``gate approve`` killed after the
worker's inbox temp file was written. Before, the gate was approved, the worker never
told, approving again "changed nothing" and no command delivered the message. Now
``doctor`` lists the interrupted action (exit 1), ``doctor --repair`` finishes it (the
worker told once, the decision in human-notes.md), and so would any other command."""

from __future__ import annotations

import json
import signal

import pytest

from teamdeck.protocol.coordination.delegation import delegate, report
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.fs import CRASH_ENV
from teamdeck.store.workspace import Workspace


def _told(ws: Workspace, gate: str) -> int:
    path = ws.inbox("alpha", "bob")
    entries = json.loads(path.read_text()) if path.exists() else []
    return sum(1 for entry in entries if entry.get("summary") == f"gate {gate} approved")


@pytest.mark.parametrize("repair", [["doctor", "--repair"], ["status"]])
def test_f17_an_approval_killed_before_the_worker_was_told_is_finished_by_the_next_command(tmp_path, run_cli, repair):
    ws = Workspace.at(tmp_path, actor="human:tester")
    create_team(ws, "alpha")
    add_member(ws, "alpha", "bob")
    create_task(ws, "t1", "Parser", team="alpha")
    delegate(ws, "t1", "bob")
    gate = report(ws, "t1", "bob", status="blocked", summary="stuck", questions=["A?"]).task.open_gates[0].id

    crashed = run_cli(tmp_path, "gate", "approve", "t1", gate, env={CRASH_ENV: "inbox.after_tmp_write"})
    assert crashed.code == -signal.SIGKILL
    assert _told(ws, gate) == 0

    listed = run_cli(tmp_path, "doctor")
    assert listed.code == 1 and "interrupted gate.decide" in listed.out and "doctor --repair" in listed.out

    finished = run_cli(tmp_path, *repair)
    assert finished.code == 0, finished.err
    said = finished.out + finished.err
    assert f"finished an interrupted gate.decide: gate {gate} of task t1 approved" in said
    assert _told(ws, gate) == 1
    assert f"<!-- teamdeck:decision {gate} -->" in ws.human_notes("t1").read_text()

    again = run_cli(tmp_path, "doctor", "--repair")
    assert "interrupted" not in again.out and _told(ws, gate) == 1
