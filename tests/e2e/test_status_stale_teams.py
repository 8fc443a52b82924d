"""Real Claude Code teams months old no longer look alive in ``teamdeck status``.

On the captured teams (tests/fixtures/claude-code/, February 2026) status used to say
"4 active" with members "working", and named the config flag ``isActive`` "active" in
the team line. Members quiet for ``staleAfterSeconds`` are now stale, a team whose
members are all offline or stale has ended, and ended teams can be hidden.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.locations import FIXTURES


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "analysis-team", root)
    return root


def test_a_months_old_team_is_stale_and_ended(capture: Path, run_cli) -> None:
    result = run_cli(capture, "status")
    assert result.code == 0, result.err
    head = result.out.splitlines()[0]
    assert "5 member(s) (0 active, 0 idle, 0 offline, 5 stale)" in head
    assert "(5 members: 0 active, 0 idle, 0 offline, 5 stale; 4 unread)  ENDED" in result.out
    assert "    task-analyst         general-purpose  stale " in result.out
    assert "(last seen working)" in result.out and "(last seen idle " in result.out
    assert "(stale: no message sent or received for 6h or more; staleAfterSeconds)" in result.out
    assert "(1 of them ended: --hide-ended leaves them out)" in result.out


def test_ended_teams_can_be_hidden(capture: Path, run_cli) -> None:
    hidden = run_cli(capture, "status", "--hide-ended")
    assert "analysis-team —" not in hidden.out
    assert "(1 ended team(s) hidden: --hide-ended or hideEndedTeams)" in hidden.out
    (capture / ".teamdeck.yaml").write_text("hideEndedTeams: true\n")
    assert "analysis-team —" not in run_cli(capture, "status").out


def test_the_threshold_is_a_setting(capture: Path, run_cli) -> None:
    (capture / ".teamdeck.yaml").write_text("staleAfterSeconds: 315360000\n")  # ten years
    result = run_cli(capture, "status")
    assert "5 member(s) (4 active, 1 idle, 0 offline)" in result.out
    assert "ENDED" not in result.out and "stale" not in result.out
