"""Seed 002's role prompt reaches a ``runtime: command`` agent: the
runner reads the member's role from the roster and the agent finds the prompt in the
file ``$TEAMDECK_ROLE_PROMPT`` names; a member without a role gets no such variable."""

from __future__ import annotations

import sys

from support.runner_world import TEAM, World

from teamdeck.protocol.team.teams import add_member, create_team

SHOW = (
    "import os, sys, pathlib; named = os.environ.get('TEAMDECK_ROLE_PROMPT'); "
    "pathlib.Path(sys.argv[1], sys.argv[2] + '.seen').write_text(pathlib.Path(named).read_text() if named else 'none')"
)


def test_a_command_agent_with_a_role_reads_its_role_prompt_and_one_without_gets_none(tmp_path) -> None:
    def team(ws) -> None:
        create_team(ws, TEAM)
        add_member(ws, TEAM, "maker", role="crafter")
        add_member(ws, TEAM, "plain")

    world = World(tmp_path / "ws", [], make_team=team)
    world.configure(
        {f"{TEAM}/*": {"runtime": "command", "command": [sys.executable, "-c", SHOW, "{workspace}", "{member}"]}}
    )
    world.send("maker", "build it")
    world.send("plain", "build it too")
    done = world.cli("run", "--once", timeout=120)
    assert done.returncode == 0, done.stderr
    assert (world.root / "maker.seen").read_text().startswith("# Your role: crafter")
    assert (world.root / "plain.seen").read_text() == "none"
