"""``teamdeck hook`` on the payloads a live 2.1.332 session sent (tests/fixtures/
claude-code/2.1.332/hooks/), and ``teamdeck hook install``.

- each payload is an event of the team's session log, the Events tail shows it, the
  roster says what the last hook said of each member;
- a teammate's tool event (no team in it) is its own, once its TeammateIdle said who it is;
- PermissionRequest waits in the queue; its PostToolUse closes it; ``--gate`` gives a
  person's answer to the client;
- bad stdin: one line, exit 1, nothing written (B14);
- ``hook install``: keeps every other key, idempotent, a backup before writing, refuses
  a file it cannot parse naming file and place, nothing written (B14 for settings.json);
- it starts without the settings model or the read model (bench/ times its start).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.locations import FIXTURES

from teamdeck.cli.main import main
from teamdeck.decisions.registry import answer_decision, find_decision
from teamdeck.errors import Refused
from teamdeck.protocol.team.hook_settings import EVENTS, install
from teamdeck.protocol.team.hooks import handle, parse_payload
from teamdeck.protocol.team.session_log import prompts, read_log
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot
from teamdeck.view.snapshot.workspace import Decision

HOOKS = FIXTURES / "2.1.332" / "hooks"


def payload(event: str, **changes: Any) -> dict[str, Any]:
    return {**json.loads((HOOKS / f"{event}.json").read_text()), **changes}


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    (tmp_path / "ws").mkdir()
    return Workspace.at(tmp_path / "ws", actor="human:tester")


def test_a_teams_hook_events_are_in_the_events_and_on_the_roster(ws: Workspace) -> None:
    team = payload("TaskCompleted")["team_name"]
    create_team(ws, team)
    add_member(ws, team, "alice")
    for event in ("TaskCreated", "TaskCompleted", "TeammateIdle"):
        done = handle(ws, payload(event))
        assert done.output == {}  # nothing for the client: it goes on as without the hook
    snapshot = build_snapshot(ws)
    rows = [(row.kind, row.actor) for row in snapshot.events if row.source == f"session {team}"]
    assert ("TaskCompleted", f"agent:alice@{team}") in rows and ("TaskCreated", f"agent:team-lead@{team}") in rows
    roster = {member.name: member for member in snapshot.teams[0].members}
    assert roster["alice"].session_event.startswith("TeammateIdle at ")
    assert roster["team-lead"].session_event.startswith('TaskCreated "')


def test_a_teammates_tool_event_is_its_own_once_it_said_who_it_is(ws: Workspace) -> None:
    idle = payload("TeammateIdle")
    tool = payload("PermissionRequest", session_id=idle["session_id"])  # the same session, no team in it
    assert handle(ws, idle).member == "alice"
    asked = handle(ws, tool)
    assert (asked.team, asked.member) == (idle["team_name"], "alice")
    unknown = handle(ws, payload("PermissionRequest", session_id="0123abcd-0000-0000-0000-000000000000"))
    assert (unknown.team, unknown.member) == ("session-0123abcd", "team-lead")  # a session's implicit team


def test_a_permission_request_waits_and_the_tool_running_closes_it(ws: Workspace) -> None:
    asked = payload("PermissionRequest")
    done = handle(ws, asked, team="alpha", member="coder")
    [decision] = build_snapshot(ws).decisions
    assert (decision.kind, decision.member, decision.tool) == ("session-permission", "coder", "Bash")
    ran = payload("PostToolUse", tool_input=asked["tool_input"])
    handle(ws, ran, team="alpha", member="coder")
    assert build_snapshot(ws).decisions == ()
    [prompt] = prompts(read_log(ws, done.team), done.team)
    assert prompt.closed.startswith("the tool ran")
    other = payload("PostToolUse", tool_input={"command": "something else"})
    before = len(read_log(ws, "alpha"))
    handle(ws, other, team="alpha", member="coder")
    assert len(read_log(ws, "alpha")) == before  # a tool event settling nothing is not recorded


def as_a_person(ws: Workspace, act: Callable[[Decision], None]) -> threading.Thread:
    """A thread that does ``act`` with the first decision in the queue (within 10 s)."""

    def person() -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            gates = build_snapshot(ws).decisions
            if gates:
                act(gates[0])
                return
            time.sleep(0.05)

    thread = threading.Thread(target=person)
    thread.start()
    return thread


def test_gate_gives_a_persons_answer_to_the_client(ws: Workspace) -> None:
    person = as_a_person(ws, lambda decision: decide(ws, decision.key, "reject", "not on main"))
    done = handle(ws, payload("PermissionRequest"), team="alpha", member="coder", gate_s=10)
    person.join()
    assert done.output == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "deny", "message": "not on main"},
        }
    }
    unanswered = handle(ws, payload("PermissionRequest", tool_input={"command": "x"}), team="alpha", gate_s=0.3)
    assert unanswered.output == {}  # no answer in time: the client asks in its terminal


@pytest.mark.parametrize(
    ("stdin", "why"),
    [
        ("not json", "invalid JSON"),
        ("[1, 2]", "hook_event_name"),
        ('{"hook_event_name": "X"}', "no team_name"),
        ('{"hook_event_name": "Stop", "x": ' + "[" * 900 + "]" * 900 + "}", "nesting too deep"),  # B25
        ('{"hook_event_name": "Stop", "x": NaN}', "non-finite"),
    ],
    ids=["not-json", "not-an-object", "no-team", "900-deep", "nan"],
)
def test_b25_bad_stdin_is_one_line_and_writes_nothing(ws: Workspace, stdin: str, why: str) -> None:
    with pytest.raises(Refused, match=why):
        handle(ws, parse_payload(stdin))
    assert not ws.sessions_dir.exists()


def test_the_command_reads_stdin_and_prints_only_what_the_client_takes(ws: Workspace) -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "teamdeck", "--workspace", str(ws.root), "hook"],
        input=json.dumps(payload("TeammateIdle")), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
    bad = subprocess.run(
        [sys.executable, "-m", "teamdeck", "--workspace", str(ws.root), "hook"],
        input="{", capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 1 and bad.stderr.startswith(
        "teamdeck: hook payload on stdin line 1 column 2: invalid JSON"
    )
    assert len(bad.stderr.strip().splitlines()) == 1


def test_it_starts_without_the_settings_or_the_read_model(ws: Workspace) -> None:
    probe = (
        "import sys, io\n"
        "sys.stdin = io.StringIO(sys.argv[2])\n"
        "from teamdeck.cli.main import main\n"
        "assert main(['--workspace', sys.argv[1], 'hook']) == 0\n"
        "heavy = [m for m in ('pydantic', 'yaml', 'teamdeck.view', 'textual', 'mcp') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe, str(ws.root), json.dumps(payload("TaskCompleted"))],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == ""


# --- hook install ----------------------------------------------------------------------


def test_install_merges_keeps_every_other_key_and_is_idempotent(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {
        "model": "opus",
        "permissions": {"allow": ["Bash(ls:*)"]},
        "hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}]},
    }
    settings.write_text(json.dumps(theirs))
    first = install(settings, "teamdeck hook --workspace /ws", "20261126T180000Z")
    written = json.loads(settings.read_text())
    assert set(first.added) == {event for event, _ in EVENTS}
    assert (written["model"], written["permissions"]) == ("opus", theirs["permissions"])
    assert written["hooks"]["PostToolUse"][0] == theirs["hooks"]["PostToolUse"][0]  # theirs kept, first
    assert written["hooks"]["PostToolUse"][1] == {
        "matcher": "*",
        "hooks": [{"type": "command", "command": "teamdeck hook --workspace /ws"}],
    }
    assert written["hooks"]["TeammateIdle"] == [
        {"hooks": [{"type": "command", "command": "teamdeck hook --workspace /ws"}]}
    ]
    assert first.backup is not None and json.loads(first.backup.read_text()) == theirs
    again = install(settings, "teamdeck hook --workspace /ws", "20261126T180001Z")
    assert (again.added, again.backup) == ((), None)
    assert json.loads(settings.read_text()) == written


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ('{"model": "opus",\n  "hooks": {', "line 2 column 13"),
        ("[1]", "the top level is not an object"),
        ('{"hooks": []}', "$.hooks is not an object"),
        ('{"hooks": {"TeammateIdle": {}}}', "$.hooks.TeammateIdle is not a list"),
        ('{"hooks": {"TaskCreated": [3]}}', "$.hooks.TaskCreated[0] is not a hook group"),
    ],
)
def test_install_refuses_a_file_it_cannot_parse(tmp_path: Path, text: str, place: str) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(text)
    with pytest.raises(Refused) as refused:
        install(settings, "teamdeck hook", "20261126T180000Z")
    assert str(refused.value).startswith(f"{settings}: ") and place in str(refused.value)
    assert "nothing was written" in str(refused.value)
    assert settings.read_text() == text and [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_the_install_command_writes_the_project_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ws").mkdir()
    project = tmp_path / "project"
    args = ["--workspace", str(tmp_path / "ws"), "hook", "install", "--project", "--project-dir", str(project)]
    assert main([*args, "--team", "alpha", "--as", "coder"]) == 0
    assert "added the TeammateIdle" in capsys.readouterr().out
    written = json.loads((project / ".claude" / "settings.json").read_text())
    command = written["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
    assert command.endswith(f"hook --workspace {tmp_path / 'ws'} --team alpha --as coder")
    assert main([*args, "--team", "alpha", "--as", "coder"]) == 0
    assert "nothing was written" in capsys.readouterr().out


def test_a_gating_install_gives_the_hook_time_to_wait(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ws").mkdir()
    project = tmp_path / "project"
    args = ["--workspace", str(tmp_path / "ws"), "hook", "install", "--project-dir", str(project), "--gate", "300"]
    assert main(args) == 0
    [group] = json.loads((project / ".claude" / "settings.json").read_text())["hooks"]["PermissionRequest"]
    assert group["hooks"][0]["timeout"] == 330 and group["hooks"][0]["command"].endswith("--gate 300")


def test_a_gated_elicitation_returns_the_persons_answer(ws: Workspace) -> None:
    asked = payload("Elicitation")

    def accept(decision: Decision) -> None:
        assert (decision.kind, decision.tool) == ("session-elicitation", asked["mcp_server_name"])
        with pytest.raises(Refused, match=r"\$: 'branch' is a required property"):
            decide(ws, decision.key, "approve", "{}")
        with pytest.raises(Refused, match="JSON object"):
            decide(ws, decision.key, "approve", "[1]")
        decide(ws, decision.key, "approve", '{"branch": "main"}')

    person = as_a_person(ws, accept)
    done = handle(ws, asked, team="alpha", member="coder", gate_s=10)
    person.join()
    assert done.output == {
        "hookSpecificOutput": {"hookEventName": "Elicitation", "action": "accept", "content": {"branch": "main"}}
    }
    ungated = handle(ws, payload("Elicitation"), team="alpha", member="coder")
    assert ungated.output == {} and build_snapshot(ws).decisions == ()  # an event only: the client shows its form


def decide(ws: Workspace, key: str, word: str, note: str) -> None:
    """Answer the open decision ``key`` as ``decisions decide`` does."""
    decision = find_decision(build_snapshot(ws), key)
    answer_decision(ws, decision, word, note)


COMMON = {"hook_event_name", "session_id", "transcript_path", "cwd", "permission_mode", "prompt_id", "effort"}
"""The fields FORMAT.md lists for every payload ("Hook payloads", its first paragraph)."""


def test_every_captured_payload_field_is_in_format_md() -> None:
    """After ``make claude-code-lock VERSION=...`` and a capture, a field the new client
    sends that FORMAT.md does not list fails here, naming it."""
    text = (FIXTURES / "FORMAT.md").read_text(encoding="utf-8")
    section = text.split("\n## Hook payloads\n", 1)[1].split("\n## ", 1)[0]
    assert all(f"`{name}`" in section.split("\n|", 1)[0] for name in COMMON)
    listed: dict[str, set[str]] = {}
    for row in [line for line in section.splitlines() if line.startswith("| `")]:
        cells = row.strip("|").split("|")
        for event in re.findall(r"`(\w+)`", cells[0]):
            listed[event] = set(re.findall(r"`(\w+)`", cells[1]))
    for path in sorted(HOOKS.glob("*.json")):
        sent = json.loads(path.read_text())
        missing = set(sent) - COMMON - listed.get(sent["hook_event_name"], set())
        assert not missing, f"{path.name}: FORMAT.md does not list {sorted(missing)}"
