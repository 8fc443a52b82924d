"""``teamdeck decisions list --json`` and panel 1 hold the same decisions, in
the same order, with the same keys: on the demo workspace and on the captured Claude Code
fixture with a permission request."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.locations import DEMO, FIXTURES
from support.pilot_helpers import make_app, run

from teamdeck.cli.main import build_parser
from teamdeck.store.workspace import Workspace
from teamdeck.tui.panels.decisions.decision_list import DecisionList


def listed_keys(ws: Workspace) -> list[str]:
    args = build_parser("decisions").parse_args(["decisions", "list", "--json"])
    return [decision["key"] for decision in args.handler(args, ws).data["decisions"]]


@pytest.mark.parametrize("source", [DEMO, FIXTURES / "synthesized"], ids=["demo", "claude-code-fixture"])
def test_the_cli_lists_exactly_the_tuis_queue(tmp_path: Path, source: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(source, root, symlinks=True)
    ws = Workspace.at(root, actor="human:tester")
    app = make_app(ws)
    shown: list[str] = []

    async def scenario(pilot) -> None:
        shown.extend(row.key for row in app.main.query_one(DecisionList).rows)

    run(app, scenario)
    assert shown, "the queue is empty: nothing was compared"
    assert listed_keys(ws) == shown
    if source != DEMO:
        assert "permission:fixture-team:worker-b:perm-fixture-0001" in shown
    else:
        assert {key.split(":")[0] for key in shown} >= {"task", "plan", "shutdown"}
