"""The roster marks a member an MCP server acts as over HTTP: ``●`` on its
row unless a problem marker (``!``) takes the place, and where it listens in the detail."""

from __future__ import annotations

from support.locations import FIXED_NOW

from teamdeck.tui.panels.roster.panel import member_detail
from teamdeck.tui.panels.roster.roster_list import CONNECTED, member_row
from teamdeck.view.snapshot.workspace import MemberView

URL = "http://127.0.0.1:8765/mcp"


def test_a_connected_member_is_marked_and_says_where() -> None:
    member = MemberView(team="alpha", name="coder", connected=URL)
    assert member_row(member, FIXED_NOW).cells[0].text == CONNECTED
    assert f"connected over MCP at {URL}" in member_detail(member, FIXED_NOW).plain


def test_a_problem_marker_wins_and_nobody_else_is_marked() -> None:
    flagged = MemberView(team="alpha", name="coder", connected=URL, markers=("not injected: x",))
    assert member_row(flagged, FIXED_NOW).cells[0].text == "!"
    plain = MemberView(team="alpha", name="reviewer")
    assert member_row(plain, FIXED_NOW).cells[0].text == " "
    assert "connected" not in member_detail(plain, FIXED_NOW).plain
