"""A live agent team of the pinned Claude Code, read and answered by teamdeck.

The interactive client runs in tmux (agent teams exist only there, not under ``-p``)
with ``--teammate-mode tmux``: a lead (the scripted model's ``lead``) creates two tasks,
spawns ``alice`` and ``bob`` with the ``Agent`` tool, assigns the tasks, messages both,
and asks alice to shut down; alice reports, completes her task and approves; bob runs a
``Bash`` command, which in this mode becomes a ``permission_request`` in the lead's
inbox. Meanwhile teamdeck's live view (``build_snapshot(record=True)`` refreshed every
20 ms, as ``teamdeck tui`` does) reads every file; when bob's request is in its decision
queue, teamdeck messages bob and answers the request, as the TUI's keys would.

What the test holds the client and teamdeck to:

- teamdeck's message reaches bob's model (the client marks it ``verified="false"``:
  only the lead's own process may speak as the lead);
- teamdeck's ``permission_response`` reaches bob's client, which refuses it (bob's
  ``Bash`` call ends in an error and its file is never made): teamdeck cannot answer a
  tmux teammate's permission request for the lead (FORMAT.md);
- after the client drained every inbox, teamdeck still shows what was said, the
  answered request, and alice gone from the roster;
- every frame and field the client wrote is listed in FORMAT.md (after
  ``make claude-code-lock VERSION=...`` this names what the new version changed).

The whole history of the team's files is recorded (tests/support/claude_team_recorder.py); set
``TEAMDECK_CAPTURE_DIR`` to keep it (that is how tests/fixtures/claude-code/2.1.332/ was
made; the in-process capture came from the same scripts without ``--teammate-mode``).
One run takes about 30 s.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.claude_code import claude_env, make_home
from support.claude_format import not_in_format
from support.claude_team_recorder import Recorder, load_history
from support.scripted_model import Reply, Request, ScriptedModel, call, calls, say

from teamdeck.errors import Refused
from teamdeck.protocol.team.messaging.handshake_writes import answer_plan
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.permissions import answer_permission
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

pytestmark = pytest.mark.slow

DEADLINE_S = 60.0


def last_user_text(request: Request) -> str:
    content = request.messages[-1].get("content")
    if isinstance(content, str):
        return content
    return "\n".join(
        block.get("text", "") if block.get("type") == "text" else json.dumps(block.get("content"))
        for block in content or ()
    )


def answers_shutdown(name: str):
    """A teammate's later turns: approve a shutdown request it was shown, else say so."""

    def turn(request: Request) -> Reply:
        asked = re.findall(rf"shutdown-\d+@{name}", last_user_text(request))
        if asked:
            answer = {"type": "shutdown_response", "request_id": asked[-1], "approve": True}
            return call("SendMessage", {"to": "team-lead", "message": answer})
        return say(f"{name} noted")

    return turn


LEAD = [
    call("ToolSearch", {"query": "select:SendMessage,TaskCreate,TaskUpdate,TaskList", "max_results": 10}),
    calls(
        (
            "TaskCreate",
            {"subject": "Write notes", "description": "alice writes notes.md", "activeForm": "Writing notes"},
        ),
        (
            "TaskCreate",
            {"subject": "Check files", "description": "bob checks the files", "activeForm": "Checking files"},
        ),
    ),
    calls(
        ("Agent", {"name": "alice", "description": "alice writes notes", "prompt": "TEAMMATE-ALICE: write the notes."}),
        ("Agent", {"name": "bob", "description": "bob checks files", "prompt": "TEAMMATE-BOB: check the files."}),
    ),
    calls(
        ("TaskUpdate", {"taskId": "1", "owner": "alice", "status": "in_progress"}),
        ("TaskUpdate", {"taskId": "2", "owner": "bob"}),
    ),
    call(
        "SendMessage",
        {"to": "alice", "message": "Lead to alice: please write the notes now.", "summary": "lead asks alice"},
    ),
    say("Waiting for the team."),
    call("SendMessage", {"to": "bob", "message": "Lead to bob: thanks for checking.", "summary": "lead thanks bob"}),
    say("ok"),
    call("SendMessage", {"to": "alice", "message": {"type": "shutdown_request", "reason": "the notes are done"}}),
    say("asked alice to shut down"),
]
ALICE = [
    call("ToolSearch", {"query": "select:SendMessage,TaskUpdate", "max_results": 5}),
    call(
        "SendMessage",
        {"to": "team-lead", "message": "Alice to lead: the notes are written.", "summary": "alice reports"},
    ),
    call("TaskUpdate", {"taskId": "1", "status": "completed"}),
    say("alice done"),
    *[answers_shutdown("alice")] * 10,
]
BOB = [
    call("ToolSearch", {"query": "select:SendMessage", "max_results": 5}),
    call("Bash", {"command": "touch bob-was-here.txt", "description": "Create a marker file"}),
    *[answers_shutdown("bob")] * 10,
]


def tmux(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False)


@pytest.fixture
def lead_in_tmux(tmp_path: Path, claude: Path, model: ScriptedModel) -> Iterator[tuple[Path, Path, str]]:
    """The interactive lead in its own tmux session (and its teammates in the client's
    ``claude-swarm-<pid>`` tmux server); both are ended after the test."""
    yield from start_lead(tmp_path, claude, model)


@pytest.fixture
def plan_mode_lead(tmp_path: Path, claude: Path, model: ScriptedModel) -> Iterator[tuple[Path, Path, str]]:
    """The same, with ``CLAUDE_CODE_PLAN_MODE_REQUIRED=true``: teammates (and the lead)
    work in plan mode."""
    yield from start_lead(tmp_path, claude, model, CLAUDE_CODE_PLAN_MODE_REQUIRED="true")


def start_lead(
    tmp_path: Path,
    claude: Path,
    model: ScriptedModel,
    prepare: Callable[[Path, Path], None] | None = None,
    **extra: str,
) -> Iterator[tuple[Path, Path, str]]:
    """``prepare(project, home)`` runs before the client starts (e.g. installs hooks)."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: the interactive client runs in tmux")
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    make_home(home, trusted=[project])
    if prepare is not None:
        prepare(project, home)
    env = claude_env(
        home, model.env(), CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS="1", CLAUDE_CODE_ENABLE_TODO_TOOLS="1", **extra
    )
    session = f"teamdeck-cc-{uuid.uuid4().hex[:12]}"
    command = " ".join(
        ["env", "-i", *(f"{key}={shlex.quote(value)}" for key, value in env.items()), shlex.quote(str(claude))]
        + ["--permission-mode", "default", "--teammate-mode", "tmux"]
    )
    before = swarm_servers()
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(project), command)
    try:
        yield project, home, session
    finally:
        tmux("kill-session", "-t", session)
        for server in swarm_servers() - before:  # the teammates' server this lead made
            subprocess.run(["tmux", "-L", server, "kill-server"], capture_output=True, check=False)
            (swarm_folder() / server).unlink(missing_ok=True)  # its socket, when it died without removing it


def go(session: str) -> None:
    """Type ``LEAD-GO`` into the lead's prompt once the client has drawn it: the lead's
    script starts (its ``when``)."""
    time.sleep(4)  # the client draws its prompt
    tmux("send-keys", "-t", session, "-l", "LEAD-GO")
    time.sleep(0.3)
    tmux("send-keys", "-t", session, "Enter")


def keep_capture(history: Path, **texts: str) -> None:
    """Copy the recorded ``history`` (and any ``texts``, by file name) to
    ``$TEAMDECK_CAPTURE_DIR`` when it is set: how the fixtures of 2.1.332/ were made."""
    keep = os.environ.get("TEAMDECK_CAPTURE_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(history, Path(keep) / "history.jsonl")
        for name, text in texts.items():
            (Path(keep) / name).write_text(text)


def swarm_folder() -> Path:
    return Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}"


def swarm_servers() -> set[str]:
    """The tmux servers the client makes for its teammates (``claude-swarm-<pid>``)."""
    return {path.name for path in swarm_folder().glob("claude-swarm-*")}


class LiveView:
    """teamdeck's live view of the client's files, as ``teamdeck tui`` keeps it: a thread
    refreshes a recording snapshot from every team file every 20 ms for as long as the
    test runs (a message the client writes and drains while the test waits on the model
    is still seen). With ``session`` it also says "Yes" to the lead's approval dialog
    whenever one shows (a lead in plan mode asks before it spawns)."""

    def __init__(self, ws: Workspace, session: str | None = None) -> None:
        self.ws, self.session = ws, session
        self.snapshot = build_snapshot(ws, record=True)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="teamdeck-live-view", daemon=True)

    def __enter__(self) -> LiveView:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.session is not None:
                screen = tmux("capture-pane", "-p", "-t", self.session).stdout
                if "Do you want to proceed?" in screen and "❯ No" in screen:
                    tmux("send-keys", "-t", self.session, "Down")
                    time.sleep(0.2)
                    tmux("send-keys", "-t", self.session, "Enter")
            teams = self.ws.root / "teams"
            files = [Path(folder) / name for folder, _dirs, names in os.walk(teams) for name in names]
            self.snapshot = refresh(self.snapshot, files)
            time.sleep(0.02)

    def wait(self, until, what: str) -> WorkspaceSnapshot:
        """The newest snapshot once ``until(snapshot)`` holds."""
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            snapshot = self.snapshot
            if until(snapshot):
                return snapshot
            time.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}")


def test_a_live_team_is_read_and_answered_by_teamdeck(
    tmp_path: Path, model: ScriptedModel, lead_in_tmux: tuple[Path, Path, str]
) -> None:
    project, home, session = lead_in_tmux
    model.script("alice", *ALICE, when="TEAMMATE-ALICE")
    model.script("bob", *BOB, when="TEAMMATE-BOB")
    model.script("lead", *LEAD, when="LEAD-GO")
    history = tmp_path / "history.jsonl"
    (home / ".claude" / "teams").mkdir(parents=True, exist_ok=True)
    ws = Workspace.at(home / ".claude", actor="human:tester")
    with Recorder(home / ".claude", history), LiveView(ws) as view:
        go(session)

        live = view.wait(lambda s: any(g.kind == "permission" for g in s.decisions), "bob's permission request")
        (asked,) = [gate for gate in live.decisions if gate.kind == "permission"]
        assert (asked.member, asked.tool) == ("bob", "Bash") and "touch bob-was-here.txt" in asked.body
        note = f"TEAMDECK-{uuid.uuid4().hex[:8]}"
        assert send_message(ws, asked.team, "bob", f"{note} from the person", summary="from teamdeck").confirmed
        assert answer_permission(ws, asked.team, "bob", asked.request_id, approve=True).confirmed

        seen = model.wait_for(lambda r: r.agent == "bob" and note in r.text, timeout=DEADLINE_S)
        assert re.search(rf'teammate_id="team-lead" summary="from teamdeck" verified="false">\s*{note}', seen.text)
        refused = model.wait_for(lambda r: r.agent == "bob" and bool(r.results_of("Bash")), timeout=DEADLINE_S)
        assert refused.results_of("Bash")[-1]["is_error"] is True  # the client did not take teamdeck's answer
        assert not (project / "bob-was-here.txt").exists()

        def settled(snapshot: WorkspaceSnapshot) -> bool:
            said = {(row.sender, row.summary) for row in snapshot.teams[0].members[0].inbox}
            drained = ws.inbox(asked.team, "team-lead").read_text() == "[]"
            return ("alice", "alice reports") in said and drained  # kept by teamdeck once the client drained it

        live = view.wait(settled, "alice's report, and the lead's inbox drained")
    model.check()

    assert not [gate for gate in live.decisions if gate.kind == "permission"]  # answered (by teamdeck)
    versions = load_history(history)
    unknown = not_in_format(versions)
    assert not unknown, f"Claude Code wrote what FORMAT.md does not list: {', '.join(unknown)}"
    keep_capture(history)


def plan_file(request: Request) -> Reply:
    """Write the plan where ExitPlanMode said it must be (its first call fails so)."""
    path = re.search(r"No plan file found at (\S+?\.md)", last_user_text(request))
    assert path is not None, "ExitPlanMode did not name the plan file"
    return call("Write", {"file_path": path.group(1), "content": "# Plan\n1. write x\n2. test x\n"})


CAROL = [
    call("ToolSearch", {"query": "select:ExitPlanMode,SendMessage", "max_results": 5}),
    call("ExitPlanMode", {}),
    plan_file,
    call("ExitPlanMode", {}),
    *[answers_shutdown("carol")] * 10,
]


def test_teamdecks_plan_approval_reaches_the_teammate_as_a_rejection(
    tmp_path: Path, model: ScriptedModel, plan_mode_lead: tuple[Path, Path, str]
) -> None:
    """A plan-mode teammate asks for approval; teamdeck approves (``plan approve``); the
    teammate's client does not take an answer the lead's process did not write: its
    model is told "[Plan Rejected]". (teamdeck's shutdown_request meets the same fate:
    the in-process capture, tests/unit/test_claude_code_captures.py; it cannot be sent
    here, since a tmux teammate is ``isActive: false`` whenever it is idle, and teamdeck
    refuses to ask an inactive member.)"""
    _project, home, session = plan_mode_lead
    model.script("carol", *CAROL, when="TEAMMATE-CAROL")
    model.script(
        "lead",
        call("Agent", {"name": "carol", "description": "carol plans", "prompt": "TEAMMATE-CAROL: plan first."}),
        say("Waiting."),
        when="LEAD-GO",
    )
    (home / ".claude" / "teams").mkdir(parents=True, exist_ok=True)
    ws = Workspace.at(home / ".claude", actor="human:tester")
    history = tmp_path / "history.jsonl"
    with Recorder(home / ".claude", history), LiveView(ws, session) as view:
        go(session)
        live = view.wait(lambda s: any(g.kind == "plan-approval" for g in s.decisions), "carol's plan")
        (plan,) = [gate for gate in live.decisions if gate.kind == "plan-approval"]
        assert plan.member == "carol" and "1. write x" in plan.body
        try:
            teamdeck_answered = answer_plan(ws, plan.team, "carol", approve=True, request_id=plan.request_id).confirmed
        except Refused:
            # The third order of the race below: the lead's own client answered before
            # teamdeck's answer was written, and teamdeck, seeing it, wrote nothing.
            teamdeck_answered = False

        # Which verdict carol hears depends on a race: when teamdeck's answer lands first,
        # the client turns it into "[Plan Rejected]"; when the lead's own client reads the
        # request first, its answer is the one taken and teamdeck's copy is shown to
        # carol's model as an unverified peer message. Either way teamdeck's approval is
        # not taken as the lead's. (The wait takes either: waiting for "[Plan " alone
        # missed the second order.) When the lead answered before teamdeck could, carol
        # hears the lead's own answer, and teamdeck refused to write a second one.
        told = model.wait_for(
            lambda r: (
                r.agent == "carol" and ("[Plan " in last_user_text(r) or "plan_approval_response" in last_user_text(r))
            ),
            timeout=DEADLINE_S,
        )
        text = last_user_text(told)
        rejected = '<teammate-message teammate_id="team-lead">\n[Plan Rejected]' in text
        unverified = re.search(
            r'teammate_id="team-lead"[^>]*verified="false">\s*\{"type":"plan_approval_response"', text
        )
        assert rejected or unverified or not teamdeck_answered, text
        live = view.wait(lambda s: ws.inbox(plan.team, "team-lead").read_text() == "[]", "the lead's inbox to drain")
    model.check()
    assert not [gate for gate in live.decisions if gate.kind == "plan-approval"]  # answered, as far as teamdeck knows
    assert not not_in_format(load_history(history))
