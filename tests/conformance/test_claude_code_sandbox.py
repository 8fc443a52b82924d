"""A tmux teammate's sandbox asks the lead for a network host: the pinned client writes
a ``sandbox_permission_request``, teamdeck queues it as a decision and answers it with
the client's own ``sandbox_permission_response``.

The lead runs interactively in tmux with ``--teammate-mode tmux`` and the command
sandbox on (``sandbox.enabled`` and ``autoAllowBashIfSandboxed`` in the user settings:
bob's ``Bash`` runs sandboxed without a permission prompt). bob runs ``curl`` to a host
no rule allows; the sandbox's network proxy asks, and in a teammate the client forwards
the question to the lead through the mailbox. The sandbox needs bubblewrap and socat:
without them the test skips, saying so, and so it does when the client itself says its
sandbox failed to initialize.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from support.claude_format import not_in_format
from support.claude_team_recorder import Recorder, load_history
from support.scripted_model import ScriptedModel, call, say
from test_claude_code_team import LiveView, answers_shutdown, go, keep_capture, start_lead, tmux

from teamdeck.decisions.registry import answer_decision
from teamdeck.model.team import SandboxPermissionRequest, decode_text
from teamdeck.store.workspace import Workspace

pytestmark = pytest.mark.slow

HOST = "sandbox-probe.example"


@pytest.fixture
def sandboxed_lead(claude: Path, model: ScriptedModel):
    """The lead in tmux with the sandbox on, its HOME under a short path: the sandbox's
    bridge sockets live under ``$TMPDIR`` (in HOME), and a Unix socket path has at most
    107 bytes (under pytest-xdist the usual tmp_path is too long: "Failed to create
    bridge sockets after 5 attempts")."""
    missing = [tool for tool in ("bwrap", "socat") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the client's command sandbox needs {' and '.join(missing)} (not installed)")
    short = Path(tempfile.mkdtemp(prefix="tdsb-"))
    settings = short / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": True}}))
    try:
        yield from start_lead(short, claude, model)
    finally:
        shutil.rmtree(short, ignore_errors=True)


def test_a_teammates_sandbox_host_request_is_a_decision_teamdeck_answers(
    tmp_path: Path, model: ScriptedModel, sandboxed_lead: tuple[Path, Path, str]
) -> None:
    _project, home, session = sandboxed_lead
    model.script(
        "bob",
        call("Bash", {"command": f"curl -s -m 20 http://{HOST}/ -o /dev/null; echo done", "description": "Fetch"}),
        *[answers_shutdown("bob")] * 10,
        when="TEAMMATE-BOB",
    )
    model.script(
        "lead",
        call("Agent", {"name": "bob", "description": "bob fetches", "prompt": "TEAMMATE-BOB: fetch the page."}),
        say("Waiting."),
        *[say("ok")] * 10,
        when="LEAD-GO",
    )
    (home / ".claude" / "teams").mkdir(parents=True, exist_ok=True)
    ws = Workspace.at(home / ".claude", actor="human:tester")
    history = tmp_path / "history.jsonl"
    with Recorder(home / ".claude", history), LiveView(ws) as view:
        go(session)

        def sandbox_failed() -> str:
            """The client's word when its sandbox could not start although bwrap and socat
            are there."""
            results = [r for request in model.turns_of("bob") for r in request.results_of("Bash")]
            said = [str(r.get("content")) for r in results if "failed to initialize" in str(r.get("content"))]
            return said[0] if said else ""

        live = view.wait(
            lambda s: any(g.kind == "sandbox-permission" for g in s.decisions) or bool(sandbox_failed()),
            "bob's sandbox request",
        )
        if sandbox_failed():
            pytest.skip(f"the client's sandbox did not start here: {sandbox_failed()}")
        (asked,) = [gate for gate in live.decisions if gate.kind == "sandbox-permission"]
        assert (asked.member, asked.reason) == ("bob", HOST)
        answer_decision(ws, asked, "deny", "not this host")
        answered = json.loads(ws.inbox(asked.team, "bob").read_text())
        view.wait(lambda s: not any(g.kind == "sandbox-permission" for g in s.decisions), "the decision closed")
        screen = tmux("capture-pane", "-p", "-t", session).stdout
    versions = load_history(history)
    requests = [
        kind
        for version in versions
        if version.text and version.path.endswith("team-lead.json") and ".tmp." not in version.path
        for entry in json.loads(version.text)
        if isinstance(kind := decode_text(entry["text"]), SandboxPermissionRequest)
    ]
    assert requests and requests[0].hostPattern.host == HOST and requests[0].workerName == "bob"
    assert any('"sandbox_permission_response"' in entry["text"] for entry in answered)
    unknown = not_in_format(versions)
    assert not unknown, f"Claude Code wrote what FORMAT.md does not list: {', '.join(unknown)}"
    keep_capture(history, **{"lead-screen.txt": screen})
