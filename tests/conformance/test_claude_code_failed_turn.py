"""A teammate whose turn fails: the pinned client's ``idle_notification`` with
``idleReason: "failed"`` and the error as ``failureReason``, shown by teamdeck as a
problem on the roster.

The lead runs interactively in tmux (in-process teammates); carol's first model call is
refused by the API (a 400, which the client does not retry: ``refuse`` in
tests/support/scripted_model.py), so her turn ends in failure and her client tells the lead.
teamdeck's live view (recording, as ``teamdeck tui``) keeps the notification after the
lead's client drains it, and marks carol ``turn failed``.
"""

from __future__ import annotations

import json
import shlex
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.claude_code import claude_env, make_home
from support.claude_format import not_in_format
from support.claude_team_recorder import Recorder, load_history
from support.scripted_model import ScriptedModel, call, refuse, say
from test_claude_code_team import LiveView, go, keep_capture, tmux

from teamdeck.model.team import IdleNotification, decode_text
from teamdeck.store.workspace import Workspace

pytestmark = pytest.mark.slow

WHY = f"FAILED-TURN-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def in_process_lead(tmp_path: Path, claude: Path, model: ScriptedModel) -> Iterator[tuple[Path, str]]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: the interactive client runs in tmux")
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    make_home(home, trusted=[project])
    env = claude_env(home, model.env(), CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS="1", CLAUDE_CODE_ENABLE_TODO_TOOLS="1")
    session = f"teamdeck-cc-{uuid.uuid4().hex[:12]}"
    command = " ".join(
        ["env", "-i", *(f"{key}={shlex.quote(value)}" for key, value in env.items()), shlex.quote(str(claude))]
        + ["--permission-mode", "default"]
    )
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(project), command)
    try:
        yield home, session
    finally:
        tmux("kill-session", "-t", session)


def test_a_failed_turn_is_a_problem_on_the_roster(
    tmp_path: Path, model: ScriptedModel, in_process_lead: tuple[Path, str]
) -> None:
    home, session = in_process_lead
    model.script("carol", refuse(WHY), when="TEAMMATE-CAROL")
    model.script(
        "lead",
        call("Agent", {"name": "carol", "description": "carol reads", "prompt": "TEAMMATE-CAROL: read the files."}),
        say("Waiting."),
        *[say("ok")] * 10,
        when="LEAD-GO",
    )
    (home / ".claude" / "teams").mkdir(parents=True, exist_ok=True)
    ws = Workspace.at(home / ".claude", actor="human:tester")
    history = tmp_path / "history.jsonl"
    with Recorder(home / ".claude", history), LiveView(ws) as view:
        go(session)

        def carol_failed(snapshot) -> bool:
            members = [m for team in snapshot.teams for m in team.members if m.name == "carol"]
            return bool(members) and any(marker.startswith("turn failed") for marker in members[0].markers)

        live = view.wait(carol_failed, "carol's failed turn on the roster")
        team = live.teams[0].name
        view.wait(lambda _s: ws.inbox(team, "team-lead").read_text() == "[]", "the lead's inbox drained")
        live = view.wait(carol_failed, "carol still marked after the drain")
    (carol,) = [m for m in live.teams[0].members if m.name == "carol"]
    assert WHY in carol.detail
    idles = [
        kind
        for version in load_history(history)
        if version.text and version.path.endswith("inboxes/team-lead.json")
        for entry in json.loads(version.text)
        if isinstance(kind := decode_text(entry["text"]), IdleNotification) and kind.from_ == "carol"
    ]
    assert idles and idles[0].idleReason == "failed" and WHY in (idles[0].failureReason or "")
    unknown = not_in_format(load_history(history))
    assert not unknown, f"Claude Code wrote what FORMAT.md does not list: {', '.join(unknown)}"
    keep_capture(history)
