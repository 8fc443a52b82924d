"""The pinned Claude Code (tests/conformance/package-lock.json), run against a scripted model.

``make test`` installs the version ``package-lock.json`` pins with ``npm ci`` into
``.cache/claude-code`` (see the Makefile). :func:`binary` finds it; when it is missing
the tests that need it skip with one reason, except under ``CI=true``, where a missing
client fails them (CI must run the conformance tests, not skip them silently).

:func:`make_home` writes a temporary ``HOME`` the client accepts without a person:
onboarding done, the dummy API key approved, the given project directories trusted
(and, optionally, their ``.mcp.json`` servers approved, as the dialog of an
interactive ``claude`` does). :func:`claude_env` is the whole environment the client
gets: nothing from the real one but ``PATH`` (with this venv's ``bin`` first, so
``teamdeck`` is found as after ``. .venv/bin/activate``), no real key, no traffic
beyond the loopback model, its scratch files under ``HOME`` too (not the shared
``/tmp/claude-<uid>``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pytest

from support.locations import REPO
from support.scripted_model import DUMMY_API_KEY

PIN = REPO / "tests" / "conformance"
"""package.json and package-lock.json: the Claude Code version the suite runs."""
INSTALL = REPO / ".cache" / "claude-code"
"""Where ``make test`` (``make claude-code``) installs it (git-ignored)."""
RUN_TIMEOUT_S = 120


def pinned_version() -> str:
    lock = json.loads((PIN / "package-lock.json").read_text())
    return lock["packages"]["node_modules/@anthropic-ai/claude-code"]["version"]


def binary() -> Path:
    """The installed pinned ``claude``; skips the test (fails it under CI=true) without it."""
    exe = INSTALL / "node_modules" / ".bin" / "claude"
    installed = INSTALL / "node_modules" / "@anthropic-ai" / "claude-code" / "package.json"
    if exe.exists() and installed.exists() and json.loads(installed.read_text())["version"] == pinned_version():
        return exe
    reason = (
        f"Claude Code {pinned_version()} is not installed in {INSTALL.relative_to(REPO)}: "
        "run `make claude-code` (needs npm, Node 20+)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(reason + " (CI=true: the conformance tests must run)", pytrace=False)
    pytest.skip(reason)


def make_home(home: Path, *, trusted: Iterable[Path] = (), mcp_approved: Iterable[str] = ()) -> Path:
    """A fresh Claude Code ``HOME``: onboarding done, the dummy key approved, each
    ``trusted`` directory trusted; ``mcp_approved`` names the ``.mcp.json`` servers
    approved in every trusted project (written where the approval dialog writes them:
    ``.claude/settings.local.json`` of the project)."""
    home.mkdir(parents=True, exist_ok=True)
    projects = {}
    for project in trusted:
        projects[str(project.resolve())] = {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}
        approved = list(mcp_approved)
        if approved:
            settings = project / ".claude" / "settings.local.json"
            settings.parent.mkdir(parents=True, exist_ok=True)
            settings.write_text(json.dumps({"enabledMcpjsonServers": approved}, indent=2))
    config = {
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": pinned_version(),
        "customApiKeyResponses": {"approved": [DUMMY_API_KEY[-20:]], "rejected": []},
        "projects": projects,
    }
    (home / ".claude.json").write_text(json.dumps(config, indent=2))
    return home


def claude_env(home: Path, model_env: Mapping[str, str], **extra: str) -> dict[str, str]:
    """The client's whole environment: the temporary HOME, the scripted model, no
    nonessential traffic, this venv's ``bin`` first on PATH."""
    venv_bin = str(Path(sys.executable).parent)
    scratch = home / "tmp"  # Claude Code keeps session scratch files (subagent transcripts...) in $TMPDIR/claude-<uid>
    scratch.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.pathsep.join([venv_bin, os.environ.get("PATH", "/usr/bin:/bin")]),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "TMPDIR": str(scratch),
        "CLAUDE_CODE_TMPDIR": str(scratch),
        "TEAMDECK_WORKSPACE": "",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        **model_env,
        **extra,
    }


def run_claude(
    *args: str, cwd: Path, env: Mapping[str, str], timeout: float = RUN_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    """Run the pinned ``claude ARGS`` in ``cwd`` to the end; its exit code and output."""
    return subprocess.run(
        [str(binary()), *args],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def option(argv: Sequence[str], name: str) -> str | None:
    """The value of ``--name=value`` or ``--name value`` in a ``claude`` argv (None: absent)."""
    for index, argument in enumerate(argv):
        if argument.startswith(f"{name}="):
            return argument.split("=", 1)[1]
        if argument == name:
            return argv[index + 1]
    return None
