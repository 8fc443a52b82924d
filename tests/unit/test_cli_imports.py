"""Each command imports only what it needs, so the CLI starts at once.

``teamdeck --help`` used to import every command module and with them the read model
(280 ms of a 0.54 s start); agents call ``send`` and ``inbox --inject`` on every turn.
Imports, not times, are asserted here: bench/cli.py measures the times.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import small_worlds as worlds

HEAVY_FOR_EVERY_COMMAND = ("teamdeck.view.build", "textual", "mcp", "uvicorn", "jsonschema")
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
        (["send", "alpha", "alice", "--summary", "s", "hello"], "teamdeck.protocol.messaging.sending"),
        (["inbox", "alpha", "alice", "--inject"], "teamdeck.protocol.messaging.injection"),
    ],
)
def test_the_commands_agents_run_every_turn_import_neither_the_read_model_nor_the_task_files(ws, argv, runs) -> None:
    worlds.team(ws)
    loaded = _modules_after(["--workspace", str(ws.root), *argv])
    assert runs in loaded  # it did run
    assert not loaded & set(HEAVY_FOR_EVERY_COMMAND)
    assert not loaded & {"teamdeck.protocol.ledger.build", "teamdeck.protocol.taskfile", "teamdeck.cli.status"}
