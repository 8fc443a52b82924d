"""The Issues panel: live as deliveries arrive (the watcher sees forge/),
and hostile titles drawn as literal, harmless text."""

from __future__ import annotations

import json

from support.forge_world import STORY, delivery, make_team, signed
from support.pilot_helpers import make_app, run, until

from teamdeck.protocol.forge.deliveries import receive
from teamdeck.tui.panels.issues.issue_list import IssueList
from teamdeck.tui.panels.issues.panel import IssuesPanel

HOSTILE = "\x1b[2J\x1b]0;pwned\x07[bold red]boom[/] [@click=app.quit]click[/] \u202eevil\x9b31m"


def _lines(widget) -> list[str]:
    return [widget.render_line(y).text for y in range(widget.size.height)]


def test_issues_appear_live_as_deliveries_arrive(ws) -> None:
    make_team(ws)
    app = make_app(ws, watch=True)

    async def scenario(pilot):
        await pilot.press("7")
        issues = app.main.query_one(IssueList)
        assert not issues.rows
        for name in STORY[:6]:
            headers, body = delivery(name)
            assert receive(ws, headers, body).outcome == "applied"
        await until(pilot, lambda: len(issues.rows) == 3, "three issues on screen")
        await until(pilot, lambda: any("waits #101" in line for line in _lines(issues)), "#102 waiting on #101")
        assert [row.key for row in issues.rows] == ["acme/quant#100", "acme/quant#101", "acme/quant#102"]

    run(app, scenario)


def test_a_hostile_issue_title_is_drawn_as_literal_text(ws) -> None:
    make_team(ws)
    payload = json.loads(delivery("issues-opened-parent-100")[1])
    payload["issue"]["title"] = HOSTILE
    body = json.dumps(payload).encode()
    assert receive(ws, signed(body, "issues", "hostile"), body).outcome == "applied"
    app = make_app(ws)

    async def scenario(pilot):
        await pilot.press("7")
        panel = app.main.query_one(IssuesPanel)
        await until(pilot, lambda: panel.selected is not None, "the issue selected")
        await pilot.pause()
        text = "\n".join(_lines(app.main.query_one(IssueList)) + _lines(app.main.query_one("#issue-detail")))
        assert "[bold red]boom[/]" in text and "[@click=app.quit]click[/]" in text
        assert not any(char in text for char in "\x1b\x07\x9b\u202e")
        assert app.is_running

    run(app, scenario)
