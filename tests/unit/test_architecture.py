"""Architecture guards: imports point down, and the core never pulls in Textual or Rich.

The import-linter contracts live in pyproject.toml ([tool.importlinter]); the second
test checks the same promise at run time, where a lazy or indirect import would show.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CORE = [
    "teamdeck.model",
    "teamdeck.store",
    "teamdeck.formats",
    "teamdeck.protocol",
    "teamdeck.view",
    "teamdeck.decisions",
    "teamdeck.shapes",
    "teamdeck.adapters",
    "teamdeck.watch",
    "teamdeck.resources",
    "teamdeck.text",
    "teamdeck.errors",
    "teamdeck.clock",
    "teamdeck.live",  # not core, but hosted by the TUI without Textual (its own contract: live-headless)
]


def test_import_linter_contracts_are_kept():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
            "--no-cache",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = proc.stdout + proc.stderr
    assert proc.returncode == 0, report
    kept = [line for line in report.splitlines() if line.endswith(" KEPT") or " KEPT (" in line]
    assert len(kept) == 13, report
    assert "BROKEN" not in report


IMPORT_CORE = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys
    for name in json.loads(sys.argv[1]):
        module = importlib.import_module(name)
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), name + "."):
            importlib.import_module(info.name)
    print(json.dumps(sorted({name.split(".")[0] for name in sys.modules} & {"textual", "rich"})))
    """
)


def test_importing_every_core_module_loads_neither_textual_nor_rich():
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_CORE, json.dumps(CORE)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
