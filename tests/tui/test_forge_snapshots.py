"""Snapshots of issue-driven teams in the TUI: the Issues panel mid-story
and at the round review, and the round-review decision in the one decision queue.

The workspace is the Gitea story of tests/fixtures/gitea/ received through the same
function ``forge serve`` calls, at a fixed clock. Regenerate with
``pytest tests/tui/test_forge_snapshots.py --snapshot-update`` and look at every changed
SVG as PNG before committing it.
"""

from __future__ import annotations

import pytest
from support.forge_world import STORY, delivery, make_team
from support.pilot_helpers import SIZE, until
from test_snapshots import prepared

from teamdeck.protocol.forge.deliveries import receive
from teamdeck.store.workspace import Workspace
from teamdeck.tui.app import TeamdeckApp, create_app
from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.panels.issues.panel import IssuesPanel

ROUND_GATE = "task:round-acme__quant-100-1:round-review"


def story_app(ws: Workspace, upto: str) -> TeamdeckApp:
    """The app on the story received up to and including delivery ``upto``."""
    make_team(ws)
    for name in STORY[: STORY.index(upto) + 1]:
        headers, body = delivery(name)
        assert receive(ws, headers, body).outcome == "applied"
    app = create_app(ws, watch=False, cursor_blink=False)
    app.animation_level = "none"
    return app


@pytest.mark.parametrize("upto", ["pull-request-review-rejected-104", "issues-closed-sub-102-by-coordinator"])
def test_issues_panel(ws: Workspace, snap_compare, upto: str) -> None:
    app = story_app(ws, upto)

    async def scenario(pilot) -> None:
        await pilot.press("7")
        await until(pilot, lambda: app.main.query_one(IssuesPanel).selected is not None, "an issue selected")
        if upto.startswith("pull-request"):
            assert app.main.query_one("#issue-list").select_key("acme/quant#101")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))


def test_round_review_decision(ws: Workspace, snap_compare) -> None:
    app = story_app(ws, STORY[-1])

    async def scenario(pilot) -> None:
        await pilot.press("7")
        await until(pilot, lambda: app.main.query_one(IssuesPanel).selected is not None, "an issue selected")
        await pilot.press("enter")
        await until(pilot, lambda: app.main.current_panel == "gates", "the decisions panel")
        assert app.main.query_one("#gate-list").current_key == ROUND_GATE
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the decision's full view")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=prepared(app, scenario))
