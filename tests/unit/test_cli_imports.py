"""Each command imports only what it needs, so the CLI starts at once.

``teamdeck --help`` used to import every command module and with them the read model
(280 ms of a 0.54 s start); agents call ``send`` and ``inbox --inject`` on every turn,
and Claude Code's hooks ``teamdeck hook`` on every event. Imports, not times, are
asserted here: bench/cli.py measures the times (bench/README.md, "CLI start").
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import small_worlds as worlds

from teamdeck.cli.commands import COMMANDS
from teamdeck.cli.main import build_parser

DEMO = Path(__file__).resolve().parents[2] / "demo-workspace"

HEAVY_FOR_EVERY_COMMAND = ("teamdeck.view.refresh.build", "textual", "mcp", "uvicorn", "jsonschema")
"""Modules no command below may import: the read model, the TUI, the servers."""


def _modules_after(argv: list[str]) -> set[str]:
    code = (
        "import json, sys\n"
        "from teamdeck.cli.main import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def test_help_imports_no_command_and_no_model() -> None:
    loaded = _modules_after(["--help"])
    assert not {name for name in loaded if name.startswith("teamdeck.cli.")} - {
        "teamdeck.cli",
        "teamdeck.cli.main",
        "teamdeck.cli.common",
        "teamdeck.cli.commands",
    }
    assert "pydantic" not in loaded and "yaml" not in loaded
    assert not loaded & set(HEAVY_FOR_EVERY_COMMAND)


@pytest.mark.parametrize(
    ("argv", "runs"),
    [
        (["send", "alpha", "alice", "--summary", "s", "hello"], "teamdeck.protocol.team.messaging.sending"),
        (["inbox", "alpha", "alice", "--inject"], "teamdeck.protocol.team.messaging.injection"),
    ],
)
def test_the_commands_agents_run_every_turn_import_neither_the_read_model_nor_the_task_files(ws, argv, runs) -> None:
    worlds.team(ws)
    loaded = _modules_after(["--workspace", str(ws.root), *argv])
    assert runs in loaded  # it did run
    assert not loaded & set(HEAVY_FOR_EVERY_COMMAND)
    assert not loaded & {
        "teamdeck.protocol.team.ledger.build",
        "teamdeck.protocol.task.taskfile",
        "teamdeck.cli.status",
    }
    assert not loaded & set(NOT_ON_THE_MESSAGE_PATH)


NOT_ON_THE_MESSAGE_PATH = (
    "yaml",  # no YAML file is read (no .teamdeck.yaml here): store/yaml_text.py holds PyYAML
    "teamdeck.store.yaml_text",
    "teamdeck.model.settings",  # the defaults, when there is no .teamdeck.yaml
    "teamdeck.model.task",  # teamdeck's task files and their guardian models
    "teamdeck.model.guardian",
    "teamdeck.protocol.coordination.roles",
    "teamdeck.protocol.team.task_list",  # `team task` and its Claude Code task files
    "teamdeck.formats.claude_code.tasks",
    "teamdeck.protocol.team.messaging.handshake_writes",  # shutdown, plan and deactivation answers
    "importlib.metadata",  # python-ulid read its own version with it: ~20 ms (teamdeck.ids)
    "email",
)
"""What ``send`` (a plain message) and ``inbox --inject`` used to import for other commands."""


def test_inbox_inject_writes_no_log_and_so_imports_neither_the_sending_nor_the_log_writer(ws) -> None:
    worlds.team(ws)
    loaded = _modules_after(["--workspace", str(ws.root), "inbox", "alpha", "alice", "--inject"])
    assert "teamdeck.protocol.team.messaging.injection" in loaded  # it did run
    assert not loaded & {
        "teamdeck.protocol.team.messaging.sending",
        "teamdeck.protocol.team.keyed_sends",
        "teamdeck.protocol.team.observed",
        "teamdeck.protocol.team.teamlog",
        "teamdeck.model.team_log",
    }


def test_a_hook_imports_no_model_and_no_yaml(ws) -> None:
    worlds.team(ws)
    code = (
        "import io, json, sys\n"
        "sys.stdin = io.StringIO(sys.argv[2])\n"
        "from teamdeck.cli.main import main\n"
        "code = main(['--workspace', sys.argv[1], 'hook'])\n"
        "print(json.dumps([code, sorted(sys.modules)]), file=sys.stderr)\n"
    )
    payload = {"hook_event_name": "TeammateIdle", "session_id": "s-1", "cwd": "/tmp", "teammate_name": "alice"}
    payload["team_name"] = "alpha"
    done = subprocess.run(
        [sys.executable, "-c", code, str(ws.root), json.dumps(payload)], capture_output=True, text=True, timeout=60
    )
    exit_code, modules = json.loads(done.stderr.strip().splitlines()[-1])
    loaded = set(modules)
    assert exit_code == 0 and "teamdeck.protocol.team.hooks" in loaded  # it did run
    assert not loaded & {"pydantic", "yaml", *HEAVY_FOR_EVERY_COMMAND}


PYDANTIC_AND_FRIENDS = {"pydantic", "pydantic_core", "yaml", "jsonschema"}
"""What a well-formed send or injection no longer imports (agents run them every turn): Claude
Code's files and messages.jsonl are Shape records (model/shape.py), checked exactly
without pydantic; pydantic is imported only for input the exact check declines."""


@pytest.mark.parametrize(
    "argv",
    [
        ["send", "checkout-revamp", "ui-dev", "--summary", "s", "hello"],
        ["send", "checkout-revamp", "team-lead", "--from", "ui-dev", "--summary", "s", "done", "--json"],
        ["inbox", "checkout-revamp", "team-lead", "--inject"],  # idle notifications, a plan request, plain text
        ["inbox", "checkout-revamp", "test-writer", "--inject", "--json"],  # a shutdown request
    ],
    ids=["send", "send-json", "inject-lead", "inject-shutdown-json"],
)
def test_send_and_inject_on_the_demo_import_no_pydantic_nor_yaml(tmp_path, argv) -> None:
    exit_code, modules, printed = _run_on_a_demo_copy(tmp_path, argv)
    assert exit_code == 0 and printed.strip()  # it ran, and said what it did
    assert not {name.split(".")[0] for name in modules} & PYDANTIC_AND_FRIENDS


def _run_on_a_demo_copy(tmp_path: Path, argv: list[str], stdin: str = "") -> tuple[int, set[str], str]:
    """Run ``teamdeck ARGV`` in a fresh interpreter on a copy of demo-workspace/: its
    exit code, the modules it had loaded at the end, and what it printed."""
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    code = (
        "import json, sys\n"
        "from teamdeck.cli.main import main\n"
        "exit_code = main(sys.argv[1:])\n"
        "print(json.dumps([exit_code, sorted(sys.modules)]), file=sys.stderr)\n"
    )
    argv = ["--workspace", str(root), *argv]
    done = subprocess.run([sys.executable, "-c", code, *argv], input=stdin, capture_output=True, text=True, timeout=60)
    exit_code, modules = json.loads(done.stderr.strip().splitlines()[-1])
    return exit_code, set(modules), done.stdout


IDLE_HOOK = {"hook_event_name": "TeammateIdle", "session_id": "s-1", "cwd": "/tmp", "teammate_name": "ui-dev"}


@pytest.mark.parametrize(
    ("argv", "stdin", "runs"),
    [
        (
            ["send", "checkout-revamp", "ui-dev", "--summary", "s", "hello"],
            "",
            "teamdeck.protocol.team.messaging.sending",
        ),
        (["inbox", "checkout-revamp", "team-lead", "--inject"], "", "teamdeck.protocol.team.messaging.injection"),
        (["hook"], json.dumps({**IDLE_HOOK, "team_name": "checkout-revamp"}), "teamdeck.protocol.team.hooks"),
    ],
    ids=["send", "inject", "hook"],
)
def test_the_commands_run_every_turn_import_neither_dataclasses_nor_inspect(tmp_path, argv, stdin, runs) -> None:
    """``dataclasses`` costs ~8 ms to import (it imports inspect, ast, dis, tokenize)
    and ~0.2 ms per class it makes: the records on these paths are NamedTuples and
    slotted classes instead."""
    exit_code, modules, _printed = _run_on_a_demo_copy(tmp_path, argv, stdin)
    assert exit_code == 0 and runs in modules  # it ran
    assert "dataclasses" not in modules
    assert "inspect" not in modules


@pytest.mark.parametrize("name", [command.name for command in COMMANDS])
def test_a_command_builds_its_own_parser_and_no_other(name) -> None:
    """``send`` used to build the parsers of every command cli/teams.py defines (~20,
    each asking gettext for its words) to use one of them."""
    parser = build_parser(name)
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    assert list(commands.choices) == [name]
    built = commands.choices[name]  # the command's own parser, not the line that names it in --help
    assert "handler" in built._defaults or any(isinstance(a, argparse._SubParsersAction) for a in built._actions)
