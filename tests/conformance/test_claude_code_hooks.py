"""``teamdeck hook`` installed with ``teamdeck hook install --project``, fired by a live
agent team of the pinned Claude Code (the team of test_claude_code_team.py: a lead,
alice who completes her task, bob whose ``Bash`` call asks for permission).

What the test holds teamdeck to:

- the install writes the project's ``.claude/settings.json`` the client reads (a second
  install changes nothing);
- the client runs the hook for the team's events: the tasks created and completed and
  the teammates going idle are events of the team's session log, tailed by the Events
  panel, and the roster shows what the last hook said of each member;
- every hook payload field the client sent is listed in FORMAT.md ("Hook payloads");
  ``TEAMDECK_CAPTURE_DIR`` keeps the payloads (tests/fixtures/claude-code/2.1.332/hooks/).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.claude_code import claude_env, make_home
from support.claude_session import InteractiveClaude
from support.scripted_model import ScriptedModel, call, say
from test_claude_code_team import ALICE, BOB, LEAD, LiveView, start_lead, tmux

from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

pytestmark = pytest.mark.slow

DEADLINE_S = 60.0
FORMAT = Path(__file__).parents[1] / "fixtures" / "claude-code" / "2.1.332" / "hooks" / "FORMAT.md"


def install(project: Path, home: Path) -> None:
    """The README's install line, as a person runs it in the project."""
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "teamdeck", "--workspace", str(home / ".claude"), "hook", "install", "--project"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    assert "nothing was written" in done.stdout  # the second install found its entries


@pytest.fixture
def hooked_lead(tmp_path: Path, claude: Path, model: ScriptedModel) -> Iterator[tuple[Path, Path, str]]:
    (tmp_path / "home" / ".claude").mkdir(parents=True)
    yield from start_lead(tmp_path, claude, model, prepare=install)


def session_records(ws: Workspace) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for log in sorted(ws.sessions_dir.glob("*.jsonl"))
        for line in log.read_text().splitlines()
        if line.strip()
    ]


def test_a_live_teams_hooks_are_team_events(
    tmp_path: Path, model: ScriptedModel, hooked_lead: tuple[Path, Path, str]
) -> None:
    project, home, session = hooked_lead
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert {"TeammateIdle", "TaskCreated", "TaskCompleted", "PermissionRequest"} <= set(settings["hooks"])
    model.script("alice", *ALICE, when="TEAMMATE-ALICE")
    model.script("bob", *BOB, when="TEAMMATE-BOB")
    model.script("lead", *LEAD, when="LEAD-GO")
    ws = Workspace.at(home / ".claude", actor="human:tester")
    with LiveView(ws) as view:
        time.sleep(4)  # the client draws its prompt
        tmux("send-keys", "-t", session, "-l", "LEAD-GO")
        time.sleep(0.3)
        tmux("send-keys", "-t", session, "Enter")

        def hooked(_snapshot: WorkspaceSnapshot) -> bool:
            return {row.kind for row in build_snapshot(ws).events} >= {"TaskCreated", "TaskCompleted", "TeammateIdle"}

        view.wait(hooked, "the team's hook events")
        live = build_snapshot(ws)  # the team is still there: its roster with what the hooks said
    records = session_records(ws)
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_kind.setdefault(record["type"], []).append(record)
    created = [r["payload"]["task_subject"] for r in by_kind["TaskCreated"]]
    assert {"Write notes", "Check files"} <= set(created)
    [completed] = [r for r in by_kind["TaskCompleted"] if r["payload"]["task_subject"] == "Write notes"]
    assert completed["actor"].startswith("agent:alice@")
    idle = {r["payload"]["teammate_name"] for r in by_kind["TeammateIdle"]}
    assert "alice" in idle
    team = completed["payload"]["team_name"]
    assert completed["actor"] == f"agent:alice@{team}"

    events = build_snapshot(ws).events
    assert any(row.kind == "TaskCompleted" and row.source == f"session {team}" for row in events)
    roster = {member.name: member for t in live.teams if t.name == team for member in t.members}
    assert roster, f"team {team} not in the live view: {[t.name for t in live.teams]}"
    assert roster["alice"].session_event.startswith(("TaskCompleted", "TeammateIdle")), roster["alice"]
    assert roster["team-lead"].session_event.startswith(("TaskCreated", "Notification")), roster["team-lead"]
    assert not [r for r in records if r["type"] == "PostToolUse"]  # recorded only when it settles a prompt

    keep = os.environ.get("TEAMDECK_CAPTURE_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        (Path(keep) / "session-log.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")


def teamdeck(workspace: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "teamdeck", "--workspace", str(workspace), *args],
        cwd=cwd, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def gate(workspace: Path, project: Path) -> None:
    """``hook install --gate 60`` in ``project``, the session acting as coder of alpha."""
    workspace.mkdir()
    project.mkdir()
    installed = teamdeck(workspace, "hook", "install", "--project", "--team", "alpha", "--as", "coder",
                         "--gate", "60", cwd=project)  # fmt: skip
    assert installed.returncode == 0, installed.stderr


def waiting_decision(workspace: Path) -> dict[str, Any]:
    """The one decision in ``decisions list --json``, once there is one."""
    deadline = time.monotonic() + DEADLINE_S
    while not (waiting := json.loads(teamdeck(workspace, "decisions", "list", "--json").stdout)["decisions"]):
        assert time.monotonic() < deadline, "nothing in the queue"
        time.sleep(0.3)
    [decision] = waiting
    return decision


def test_a_gating_hook_gives_the_persons_answer_to_the_prompt(
    tmp_path: Path, claude: Path, model: ScriptedModel
) -> None:
    """``hook install --gate``: the session's prompt waits in teamdeck's queue, the
    person answers there, the hook returns the answer and the tool runs (no channel)."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: the interactive client runs in tmux")
    workspace, project = tmp_path / "ws", tmp_path / "project"
    gate(workspace, project)
    home = make_home(tmp_path / "home", trusted=[project])
    model.script("coder", call("Bash", {"command": "touch gated", "description": "make a file"}), say("after bash"))
    client = InteractiveClaude(
        "--permission-mode", "default",
        cwd=project, env=claude_env(home, model.env()), debug_file=tmp_path / "debug.log",
    )  # fmt: skip
    try:
        time.sleep(4)  # the client draws its prompt
        client.type("make the file")
        decision = waiting_decision(workspace)
        assert (decision["kind"], decision["member"], decision["tool"]) == ("session-permission", "coder", "Bash")
        decided = teamdeck(workspace, "decisions", "decide", decision["key"], "approve")
        assert decided.returncode == 0, decided.stderr
        after = model.wait_for(lambda r: bool(r.results_of("Bash")), timeout=DEADLINE_S)
    finally:
        client.kill()
    assert not after.results_of("Bash")[-1].get("is_error"), after.results_of("Bash")
    assert (project / "gated").exists()


def test_a_gating_hook_answers_an_mcp_servers_question(tmp_path: Path, claude: Path, model: ScriptedModel) -> None:
    """An MCP server elicits a form; the gating hook holds it as a decision; a person
    accepts it in teamdeck with the form's answer as the note (a wrong answer is refused);
    the server gets accept and the content, the model reads the tool's result."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: the interactive client runs in tmux")
    workspace, project = tmp_path / "ws", tmp_path / "project"
    gate(workspace, project)
    server = Path(__file__).parents[1] / "support" / "elicit_server.py"
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"asker": {"command": sys.executable, "args": [str(server)]}}})
    )
    home = make_home(tmp_path / "home", trusted=[project], mcp_approved=["asker"])
    model.script("coder", call("mcp__asker__pick_branch", {}), say("done"))
    client = InteractiveClaude(
        "--permission-mode", "default", "--allowedTools", "mcp__asker",
        cwd=project, env=claude_env(home, model.env()), debug_file=tmp_path / "debug.log",
    )  # fmt: skip
    try:
        client.wait_in_debug('MCP server "asker": Successfully connected')
        time.sleep(2)  # the client draws its prompt
        client.type("pick the branch")
        decision = waiting_decision(workspace)
        assert (decision["kind"], decision["server"]) == ("session-elicitation", "asker")
        assert json.loads(decision["form"])["required"] == ["branch"]
        wrong = teamdeck(workspace, "decisions", "decide", decision["key"], "approve", "--note", '{"branch": 7}')
        assert wrong.returncode == 1 and "$.branch" in wrong.stderr  # checked against the form, nothing written
        right = teamdeck(workspace, "decisions", "decide", decision["key"], "approve", "--note", '{"branch": "main"}')
        assert right.returncode == 0, right.stderr
        after = model.wait_for(lambda r: bool(r.results_of("mcp__asker__pick_branch")), timeout=DEADLINE_S)
    finally:
        client.kill()
    assert "action=accept branch=main" in after.result_of("mcp__asker__pick_branch")
