"""Roles (seed 002, protocol/coordination/roles.py): a member's role in the roster decides which MCP
tools its server offers and which protocol calls it may make; a refusal is one clear
line over MCP and over the CLI, and nothing is written (B-series: bad input refused
with one message naming what and why)."""

from __future__ import annotations

from pathlib import Path

import anyio
from support.mcp_clients import TEAM, call, refused, stdio_session, workspace_bytes

from teamdeck.mcp_server.tools import TOOLS as DECLARED
from teamdeck.protocol.coordination.delegation import delegate
from teamdeck.protocol.coordination.roles import ROLES, member_role_prompt, role_of, role_prompt
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.team.teams import add_member, create_team, read_team, set_role
from teamdeck.store.workspace import Workspace

TOOLS = {tool.name: tool.description for tool in DECLARED}
TIMEOUT_S = 120


def _workspace(root: Path) -> Workspace:
    """Team alpha: routa (coordinator), coder (crafter), checker (gate), plain (no role);
    t1 delegated to coder, t2 to routa (by the lead), t3 approved."""
    root.mkdir(parents=True)
    ws = Workspace.at(root, actor="human:tester")
    create_team(ws, TEAM)
    for name, role in (("routa", "coordinator"), ("coder", "crafter"), ("checker", "gate"), ("plain", None)):
        add_member(ws, TEAM, name, role=role)
    for task in ("t1", "t2", "t3"):
        create_task(ws, task, f"Task {task}", team=TEAM, state="approved")
    delegate(ws, "t1", "coder")
    delegate(ws, "t2", "routa")
    return ws


def test_the_roster_keeps_each_members_role(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    config = read_team(ws, TEAM)
    assert [role_of(config, name) for name in ("routa", "coder", "checker", "plain", "team-lead")] == [
        "coordinator",
        "crafter",
        "gate",
        "none",
        "none",
    ]


def test_each_role_has_its_prompt_for_the_runtime(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    config = read_team(ws, TEAM)
    for role in ROLES[:-1]:
        prompt = role_prompt(role)
        assert prompt is not None and prompt.startswith(f"# Your role: {role}\n")
    assert "report_to_parent" in (member_role_prompt(config, "coder") or "")
    assert member_role_prompt(config, "plain") is None and role_prompt("none") is None


def test_each_role_is_offered_only_its_tools_and_refused_the_others_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _workspace(root)

    async def main() -> None:
        with anyio.fail_after(TIMEOUT_S):
            async with stdio_session(root, "coder") as coder:
                offered = [tool.name for tool in (await coder.list_tools()).tools]
                assert offered == [t for t in TOOLS if t not in ("delegate", "create_agent")]
                before = workspace_bytes(root)
                text = await refused(coder, "delegate", task="t3", member="plain")
                assert "Could not delegate as 'coder': it is the crafter of team 'alpha'" in text
                assert "does not delegate" in text and text.endswith("nothing was written")
                text = await refused(coder, "create_agent", name="helper")
                assert "it is the crafter of team 'alpha'" in text
                assert workspace_bytes(root) == before
                await call(coder, "message_agent", member="routa", summary="blocked", text="t1 needs a schema")
            async with stdio_session(root, "checker") as checker:
                offered = [tool.name for tool in (await checker.list_tools()).tools]
                assert "request_decision" not in offered and "report_to_parent" in offered
                text = await refused(checker, "request_decision", task="t1", reason="r", questions=["q?"])
                assert "it is the gate of team 'alpha'" in text and "verdict" in text
            async with stdio_session(root, "routa") as routa:
                offered = [tool.name for tool in (await routa.list_tools()).tools]
                assert "report_to_parent" not in offered and "delegate" in offered
                text = await refused(routa, "report_to_parent", task="t2", status="completed", summary="done")
                assert "it is the coordinator of team 'alpha'" in text
                agents = (await call(routa, "list_agents"))["agents"]
                assert {a["name"]: a["teamRole"] for a in agents} == {
                    "team-lead": "none",
                    "routa": "coordinator",
                    "coder": "crafter",
                    "checker": "gate",
                    "plain": "none",
                }
                await call(routa, "delegate", task="t3", member="coder")
                made = await call(routa, "create_agent", name="checker2", team_role="gate")
                assert made["member"]["role"] == "gate"
            async with stdio_session(root, "plain") as plain:
                assert [tool.name for tool in (await plain.list_tools()).tools] == list(TOOLS)
                set_role(Workspace.at(root, actor="human:tester"), TEAM, "plain", "crafter")
                text = await refused(plain, "delegate", task="t3", member="coder")
                assert "it is the crafter of team 'alpha'" in text, "the role as the roster says now"

    anyio.run(main)


def test_the_cli_refuses_a_role_limit_in_one_line(tmp_path: Path, run_cli) -> None:
    root = tmp_path / "ws"
    _workspace(root)
    before = workspace_bytes(root)
    result = run_cli(root, "delegate", "t3", "plain", "--from", "coder")
    assert result.code != 0 and result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "Could not delegate as 'coder': it is the crafter of team 'alpha'" in lines[0]
    result = run_cli(root, "report", "t2", "routa", "--status", "completed", "--summary", "done")
    lines = result.err.strip().splitlines()
    assert result.code != 0 and len(lines) == 1 and "it is the coordinator of team 'alpha'" in lines[0]
    assert workspace_bytes(root) == before
    assert run_cli(root, "delegate", "t3", "coder", "--from", "routa").code == 0


def test_a_member_made_by_claude_code_gets_its_role_from_the_cli(tmp_path: Path, run_cli) -> None:
    root = tmp_path / "ws"
    ws = _workspace(root)
    assert run_cli(root, "member", "role", TEAM, "plain", "crafter").code == 0
    assert role_of(read_team(ws, TEAM), "plain") == "crafter"
    result = run_cli(root, "delegate", "t3", "coder", "--from", "plain")
    assert result.code != 0 and "it is the crafter of team 'alpha'" in result.err
    assert run_cli(root, "member", "role", TEAM, "plain", "none").code == 0
    assert run_cli(root, "delegate", "t3", "coder", "--from", "plain").code == 0
    lead = run_cli(root, "member", "role", TEAM, "team-lead", "gate")
    assert lead.code != 0 and len(lead.err.strip().splitlines()) == 1
