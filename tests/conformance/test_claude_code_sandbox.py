"""A tmux teammate's sandbox asks the lead for a network host: the pinned client writes
a ``sandbox_permission_request``, teamdeck queues it as a decision and answers it with
the client's own ``sandbox_permission_response``.

The lead runs interactively in tmux with ``--teammate-mode tmux`` and the command
sandbox on (``sandbox.enabled`` and ``autoAllowBashIfSandboxed`` in the user settings:
bob's ``Bash`` runs sandboxed without a permission prompt). bob runs ``curl`` to a host
no rule allows; the sandbox's network proxy asks, and in a teammate the client forwards
the question to the lead through the mailbox. The sandbox needs bubblewrap and socat:
without them the test skips, saying so (FORMAT.md then keeps the schema-built frames).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from claude_format import not_in_format
from claude_team_recorder import Recorder, load_history
from scripted_model import ScriptedModel, call, say
from test_claude_code_team import LiveView, answers_shutdown, go, keep_capture, start_lead, tmux

from teamdeck.decisions.registry import answer_decision
from teamdeck.model.claude import SandboxPermissionRequest, decode_text
from teamdeck.store.workspace import Workspace

pytestmark = [pytest.mark.conformance, pytest.mark.slow]

HOST = "sandbox-probe.example"


@pytest.fixture
def sandboxed_lead(tmp_path: Path, claude: Path, model: ScriptedModel):
    missing = [tool for tool in ("bwrap", "socat") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"the client's command sandbox needs {' and '.join(missing)} (not installed)")
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": True}}))
    yield from start_lead(tmp_path, claude, model)


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
        live = view.wait(lambda s: any(g.kind == "sandbox-permission" for g in s.gates), "bob's sandbox request")
        (asked,) = [gate for gate in live.gates if gate.kind == "sandbox-permission"]
        assert (asked.member, asked.reason) == ("bob", HOST)
        answer_decision(ws, asked, "deny", "not this host")
        answered = json.loads(ws.inbox(asked.team, "bob").read_text())
        view.wait(lambda s: not any(g.kind == "sandbox-permission" for g in s.gates), "the decision closed")
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
