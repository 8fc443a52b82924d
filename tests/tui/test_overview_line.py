"""The overview line (tui/widgets/overview_line.py): one line drawn with the line API
from its cached parts, which must follow the workspace and the theme as the ``Static``
it replaced did."""

from __future__ import annotations

import re

from support import small_worlds as worlds
from support.pilot_helpers import busy, make_app, run, until

from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.store.workspace import Workspace
from teamdeck.tui.widgets.overview_line import OverviewLine, overview_parts
from teamdeck.view.refresh.build import build_snapshot


def _colours(line: OverviewLine) -> dict[str, tuple[object, object]]:
    """Each drawn piece of text -> its foreground and background."""
    return {segment.text: (segment.style.color, segment.style.bgcolor) for segment in line.render_line(0)}


def test_a_change_redraws_the_line(world: Workspace) -> None:
    app = make_app(world)

    async def scenario(pilot):
        line = app.main.query_one(OverviewLine)
        await until(pilot, lambda: "unread" in line.plain, "the first overview")
        unread = re.search(r"(\d+) unread", line.plain)
        assert unread is not None, line.plain
        count = int(unread.group(1))
        send_message(world, "alpha", "bob", "one more", summary="more", sender="alice")
        app.paths_changed([world.inbox("alpha", "bob")])
        await until(pilot, lambda: not busy(app) and f"{count + 1} unread" in line.plain, "the new unread count")
        drawn = "".join(segment.text for segment in line.render_line(0))
        assert f"{count + 1} unread" in drawn
        assert len(drawn) == line.size.width  # padded to the edge with the line's background

    run(app, scenario)


def test_muted_parts_are_muted_and_a_new_theme_recolours_the_line(world: Workspace) -> None:
    app = make_app(world)

    async def scenario(pilot):
        line = app.main.query_one(OverviewLine)
        await until(pilot, lambda: "unread" in line.plain, "the first overview")
        dark = _colours(line)
        idle = next(text for text in dark if text.endswith(" idle"))
        members = next(text for text in dark if "member" in text)
        assert dark[idle][0] != dark[members][0]  # idle is muted, the member count is not
        app.theme = "textual-light"
        await pilot.pause()
        light = _colours(line)
        assert light[members] != dark[members] and light[idle] != dark[idle]

    run(app, scenario)


def test_the_compact_line_says_no_decisions_in_words(ws: Workspace) -> None:
    """With nothing waiting, the short form reads as words (a bare ``1t`` beside
    "tasks" read as a typo), the task count singular for one task."""
    worlds.team(ws)
    create_task(ws, "t1", "Build the parser", team="alpha")
    snapshot = build_snapshot(ws)
    compact = "".join(text for text, _ in overview_parts(snapshot, snapshot.taken_at, compact=True))
    assert "│no decisions (1 task scanned)│" in compact, compact
