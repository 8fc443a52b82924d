"""A live team of the pinned Ripperdoc, read and answered by teamdeck (seed 004).

A ``ripperdoc -p`` lead (the scripted model's ``lead``) creates ``lib-team`` with
``TeamCreate`` and spawns ``alice`` and ``bob`` in the background with its ``Agent``
tool; both run in the lead's process. The scripts hold model calls (:class:`Gate`)
so that the test acts while the teammates' loops run, as a person at ``teamdeck tui``
would:

- alice tells the lead what she found; ``teamdeck status --json`` lists both teammates
  as working, ``teamdeck inbox`` shows what alice said, ``validate`` finds nothing
  wrong in Ripperdoc's own files, and the TUI's roster shows the teammates;
- ``teamdeck send`` reaches alice's next model request as a ``<teammate-message>``
  from the sender, and she answers;
- ``teamdeck shutdown`` reaches alice as Ripperdoc's shutdown request, she approves
  it with ``SendMessage``, and teamdeck shows the handshake complete;
- the lead runs Ripperdoc's own handshake with bob, and teamdeck reads it, and the
  idle notifications each teammate's ended run sends the lead;
- the lead's ``TeamDelete`` removes the team; teamdeck keeps it, ENDED, with what was
  said.

The history of every file Ripperdoc writes is recorded; set ``TEAMDECK_CAPTURE_DIR``
to keep it (tests/fixtures/ripperdoc/0.6.2/team/ was made so). One run takes ~15 s.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.claude_team_recorder import Recorder
from support.ripperdoc_client import Gate, binary, config_dir, ripperdoc_env, start_ripperdoc
from support.scripted_model import Reply, Request, ScriptedModel, call, say
from support.tmux import Tmux, tui_command

pytestmark = pytest.mark.slow

TEAM = "lib-team"
DEADLINE_S = 60.0
LEAD_PROMPT = "Lead the library team: fix the tokenizer."


def teammate(name: str, task: str) -> tuple[str, dict[str, Any]]:
    return (
        "Agent",
        {
            "description": f"{name} works",
            "prompt": f"You are {name}. {task}",
            "team_name": TEAM,
            "name": name,
            "subagent_type": "general-purpose",
            "run_in_background": True,
        },
    )


def message(recipient: str, content: str, summary: str) -> Reply:
    return call("SendMessage", {"type": "message", "recipient": recipient, "content": content, "summary": summary})


def pause() -> Reply:
    """A step that keeps a teammate's loop going: its next model request comes after
    the tool's result, with whatever reached its inbox meanwhile."""
    return call("Sleep", {"duration": 0.1})


def approves_shutdown(request: Request) -> Reply:
    """Answer the shutdown request the model was just shown, as Ripperdoc's prompt asks."""
    asked = re.findall(r'"requestId":\s*"(req_[0-9a-f]+)"', request.text)
    assert asked, f"no shutdown request reached the model: {request.text[-600:]!r}"
    return call("SendMessage", {"type": "shutdown_response", "request_id": asked[-1], "approve": True})


def teamdeck(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "teamdeck", *args, "--workspace", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TEAMDECK_WORKSPACE": "", "NO_COLOR": "1"},
    )


def json_of(root: Path, *args: str) -> Any:
    done = teamdeck(root, *args, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def until(predicate: Callable[[], Any], what: str, timeout: float = DEADLINE_S) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout}s: {what}")


def inbox_entries(root: Path, member: str) -> list[dict[str, Any]]:
    """What Ripperdoc's own file holds for ``member`` (a missing file is empty)."""
    try:
        entries: list[dict[str, Any]] = json.loads((root / "teams" / TEAM / "inboxes" / f"{member}.json").read_text())
    except (FileNotFoundError, ValueError):
        return []
    return entries


def members_of(status: Any) -> dict[str, dict[str, Any]]:
    [team] = [team for team in status["teams"] if team["name"] == TEAM]
    return {member["name"]: member for member in team["members"]}


@pytest.fixture
def capture(tmp_path: Path) -> Iterator[Path]:
    """The history file; copied to ``$TEAMDECK_CAPTURE_DIR`` after the test, when set."""
    history = tmp_path / "history.jsonl"
    yield history
    keep = os.environ.get("TEAMDECK_CAPTURE_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(history, Path(keep) / "history.jsonl")


def test_a_live_ripperdoc_team_is_read_and_answered_by_teamdeck(tmp_path: Path, capture: Path) -> None:
    binary()
    project = tmp_path / "project"
    project.mkdir()
    lead_waits = Gate(call("SendMessage", {"type": "shutdown_request", "recipient": "bob", "content": "wrap up"}))
    lead_deletes = Gate(call("TeamDelete", {}))
    alice_found = Gate(pause())
    alice_done = Gate(pause())
    bob_waits = Gate(pause())
    with ScriptedModel() as model:
        model.script(
            "lead",
            call("TeamCreate", {"team_name": TEAM, "description": "parser fixes"}),
            call("Agent", teammate("alice", "Fix the tokenizer.")[1]),
            call("Agent", teammate("bob", "Review the fix.")[1]),
            lead_waits,
            lead_deletes,
            say("the team is done"),
            when=LEAD_PROMPT,
        )
        model.script(
            "alice",
            message("team-lead", "alice: the tokenizer drops the last line", "tokenizer"),
            alice_found,
            lambda request: message("team-lead", "alice: CRLF handled too", "crlf"),
            alice_done,
            approves_shutdown,
            say("alice is exiting"),
            when="You are alice.",
        )
        model.script("bob", bob_waits, approves_shutdown, say("bob is exiting"), when="You are bob.")
        home = tmp_path / "home"
        root = config_dir(home)
        env = ripperdoc_env(home, model.base_url)
        with Recorder(root, capture):
            lead = start_ripperdoc(LEAD_PROMPT, cwd=project, env=env)
            tui: Tmux | None = None
            try:
                alice_found.wait()
                bob_waits.wait()
                tui = Tmux(tui_command(root))
                tui.wait_for("1 team")
                tui.keys("2")
                tui.wait_for("alice", "bob")

                # Both teammates run: teamdeck lists them, with what alice said.
                running = members_of(json_of(root, "status"))
                assert {"alice", "bob"} <= running.keys()
                assert (running["alice"]["status"], running["bob"]["status"]) == ("working", "working")
                said = json_of(root, "inbox", TEAM, "team-lead")
                assert ("alice", "alice: the tokenizer drops the last line") in [
                    (m["message"]["from"], m["message"]["text"]) for m in said["messages"]
                ]
                checked = teamdeck(root, "validate")
                assert checked.returncode == 0, checked.stdout + checked.stderr

                # teamdeck's message reaches alice's next model call.
                sent = teamdeck(root, "send", TEAM, "alice", "Check the CRLF case too", "--summary", "crlf")
                assert sent.returncode == 0, sent.stdout + sent.stderr
                alice_found.open()
                alice_done.wait()
                shown = alice_done.request
                assert shown is not None
                assert '<teammate-message teammate_id="team-lead" summary="crlf">\nCheck the CRLF case too\n' in (
                    shown.text
                ), shown.text[-800:]

                # teamdeck's shutdown, in Ripperdoc's form, waiting, then answered by alice.
                asked = json_of(root, "shutdown", TEAM, "alice", "--reason", "tokenizer fixed")
                request_id = asked["requestId"]
                assert re.fullmatch(r"req_[0-9a-f]{10}", request_id)
                waiting = members_of(json_of(root, "status"))["alice"]["pendingShutdown"]
                assert waiting == request_id  # waiting on alice, shown as her pending shutdown
                alice_done.open()

                # Ripperdoc's own handshake: the lead asks bob, bob approves.
                lead_waits.open()
                until(
                    lambda: any(e["message_type"] == "shutdown_request" for e in inbox_entries(root, "bob")),
                    "the lead's shutdown request to bob",
                )
                bob_waits.open()
                lead_deletes.wait()
                ended = until(
                    lambda: (lambda m: m if not (m["alice"]["active"] or m["bob"]["active"]) else None)(
                        members_of(json_of(root, "status"))
                    ),
                    "both teammates' runs ended",
                )
                assert [(ended[n]["status"], ended[n]["pendingShutdown"]) for n in ("alice", "bob")] == [
                    ("offline", None),
                    ("offline", None),
                ]
                [bobs_request] = [e for e in inbox_entries(root, "bob") if e["message_type"] == "shutdown_request"]
                frames = {
                    (m["type"], m["message"]["from"]): m["decoded"]
                    for m in json_of(root, "inbox", TEAM, "team-lead")["messages"]
                    if m["decoded"]
                }
                assert frames[("shutdown_approved", "alice")]["requestId"] == request_id  # teamdeck's, answered
                assert frames[("shutdown_approved", "bob")]["requestId"] == bobs_request["metadata"]["requestId"]
                assert frames[("idle_notification", "alice")]["idleReason"] == "shutdown"
                assert frames[("idle_notification", "bob")]["idleReason"] == "shutdown"
                checked = teamdeck(root, "validate")
                assert checked.returncode == 0, checked.stdout + checked.stderr

                # TeamDelete: the team's files are gone; the TUI keeps it, ended, with what was said.
                lead_deletes.open()
                out, err = lead.communicate(timeout=DEADLINE_S)
                assert lead.returncode == 0, out + err
                assert not (root / "teams" / TEAM).exists()
                tui.wait_for("lib-team (ENDED)")
                tui.keys("3")
                tui.wait_for("inbox of team-lead (team lib-team) · 10 row(s)", "crlf", "idle (shutdown)")
            finally:
                for gate in (lead_waits, lead_deletes, alice_found, alice_done, bob_waits):
                    gate.open()
                if lead.poll() is None:
                    lead.kill()
                    lead.communicate()
                if tui is not None:
                    tui.kill()
        model.check()
