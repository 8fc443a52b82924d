"""Each import contract of pyproject.toml fails when its rule is broken: a bad import is
planted in a temporary copy of src/ (or a module no layer names is added), and
lint-imports, run on the copy, reports that very contract BROKEN naming the planted
line. A contract that cannot fail would check nothing. (That every contract is kept
before anything is planted is test_architecture.py's.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# contract id -> (module file under src/teamdeck, the line planted in it, what the report names)
PLANTS = {
    "layers": (
        "view/figures/overview.py",
        "import teamdeck.cli.main",
        "teamdeck.view.figures.overview -> teamdeck.cli.main",
    ),
    "layers-exhaustive": ("unplaced.py", "", "teamdeck.unplaced"),
    "acyclic": (
        "protocol/guardians/registry.py",
        "import teamdeck.protocol.plans.machine",
        ".guardians -> .plans",
    ),
    "protocol-layers": (
        "protocol/common/events.py",
        "import teamdeck.protocol.task.replay",
        "teamdeck.protocol.common.events -> teamdeck.protocol.task.replay",
    ),
    "protocol-siblings": (
        "protocol/task/human_notes.py",
        "import teamdeck.protocol.team.observed",
        "teamdeck.protocol.task.human_notes -> teamdeck.protocol.team.observed",
    ),
    "protocol-exhaustive": ("protocol/unplaced.py", "", "teamdeck.protocol.unplaced"),
    "no-textual": ("protocol/common/events.py", "import rich.text", "teamdeck.protocol.common.events -> rich"),
    "live-headless": ("live/workspace.py", "import textual.app", "teamdeck.live.workspace -> textual"),
    "web-alone": ("web/pages.py", "import teamdeck.tui.render", "teamdeck.web.pages -> teamdeck.tui.render"),
    "no-network": ("protocol/forge/round_review.py", "import httpx2", "teamdeck.protocol.forge.round_review -> httpx2"),
    "no-adapter": (
        "view/readers/outbox.py",
        "import teamdeck.adapters.forge_outbox",
        "teamdeck.view.readers.outbox -> teamdeck.adapters.forge_outbox",
    ),
    "fronts-store": (
        "mcp_server/server.py",
        "import teamdeck.store.jsonl",
        "teamdeck.mcp_server.server -> teamdeck.store.jsonl",
    ),
    "team-format-seam": (
        "view/readers/team_roster.py",
        "import teamdeck.formats.claude_code.inbox",
        "teamdeck.view.readers.team_roster -> teamdeck.formats.claude_code.inbox",
    ),
    "view-reads": (
        "view/readers/tasks.py",
        "import teamdeck.protocol.effects.gate_decisions",
        "teamdeck.view.readers.tasks -> teamdeck.protocol.effects.gate_decisions",
    ),
    "view-layers": (
        "view/snapshot/workspace.py",
        "import teamdeck.view.readers.tasks",
        "teamdeck.view.snapshot.workspace -> teamdeck.view.readers.tasks",
    ),
    "view-exhaustive": ("view/unplaced.py", "", "teamdeck.view.unplaced"),
    "tui-layers": (
        "tui/render.py",
        "import teamdeck.tui.panels.decisions.panel",
        "teamdeck.tui.render -> teamdeck.tui",
    ),
    "tui-exhaustive": ("tui/unplaced.py", "", "teamdeck.tui.unplaced"),
    "tui-panels": (
        "tui/panels/decisions/actions.py",
        "import teamdeck.tui.panels.roster.actions",
        "teamdeck.tui.panels.decisions.actions -> teamdeck.tui.panels.roster",
    ),
}
CONTRACT = {
    "layers": "layers",
    "layers-exhaustive": "layers",
    "acyclic": "acyclic",
    "no-textual": "no-textual",
    "live-headless": "live-headless",
    "web-alone": "web-alone",
    "no-network": "no-network",
    "no-adapter": "no-network",
    "fronts-store": "fronts-store",
    "team-format-seam": "team-format-seam",
    "view-reads": "view-reads",
    "protocol-layers": "protocol-layers",
    "protocol-siblings": "protocol-layers",
    "protocol-exhaustive": "protocol-layers",
    "view-layers": "view-layers",
    "view-exhaustive": "view-layers",
    "tui-layers": "tui-layers",
    "tui-exhaustive": "tui-layers",
    "tui-panels": "tui-panels",
}


def lint(root: Path, contract: str) -> subprocess.CompletedProcess[str]:
    """lint-imports on the copy at ``root`` (its src/ first on the path), one contract."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
            "--no-cache",
            "--contract",
            contract,
        ],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root / "src")},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "src", tmp_path / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_each_contract_breaks_when_its_rule_is_broken(copy: Path, plant: str) -> None:
    module, line, named = PLANTS[plant]
    contract = CONTRACT[plant]
    target = copy / "src" / "teamdeck" / module
    with target.open("a", encoding="utf-8") as file:
        file.write(f"\n{line}\n")
    report = lint(copy, contract)
    output = report.stdout + report.stderr
    assert report.returncode != 0 and "BROKEN" in output, output
    assert named in output, output
