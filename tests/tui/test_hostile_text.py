"""S1-S7 at the widget level: a workspace whose names, messages, summaries, task titles,
worker summaries and questions are hostile (markup, escape sequences, overwrites, bidi
controls, a 10 MB message, a 100 KB line) is drawn literally and harmlessly.

What is checked is what Textual actually puts on the screen: the strips the compositor
renders (text and styles), not the widgets' inputs.
"""

from __future__ import annotations

import re

import pytest
from rich.cells import cell_len
from support import hostile
from support.pilot_helpers import busy, make_app, palette_gathered, run, showing, until

from teamdeck.store.workspace import Workspace
from teamdeck.tui.app import TeamdeckApp
from teamdeck.tui.dialogs.compose import ComposeScreen
from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.inbox.inbox_list import InboxList
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.screens.main import MainScreen
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

WIDE = (220, 60)
UNSAFE_CHARS = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
"""What must never reach the terminal from agent text: C0 (but newline), DEL, C1, and
bidi or zero-width characters (those are shown as <U+XXXX>)."""


@pytest.fixture
def hostile_ws(ws: Workspace) -> Workspace:
    hostile.hostile_world(ws)
    return ws


# --- reading the screen -------------------------------------------------------------------


def screen_lines(app: TeamdeckApp) -> list[str]:
    """The text of every line of the current screen, as drawn."""
    return ["".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()]


def screen_text(app: TeamdeckApp) -> str:
    return "\n".join(screen_lines(app))


def segments_with(app: TeamdeckApp, needle: str):
    """Every drawn segment whose text shares a word with ``needle`` (to check styles)."""
    words = {word for word in re.split(r"\W+", needle) if len(word) >= 4}
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            if any(word in segment.text for word in words):
                yield segment


def find_on_screen(app: TeamdeckApp, needle: str) -> list[tuple[int, int]]:
    """Screen offsets (x, y) of the first character of each line holding ``needle``."""
    found = []
    for y, line in enumerate(screen_lines(app)):
        index = line.find(needle)
        if index >= 0:
            found.append((cell_len(line[:index]), y))
    return found


def assert_safe(app: TeamdeckApp, *, raw: bool = False) -> str:
    """The screen holds no control, C1, bidi or zero-width character, no escape payload
    (but in a raw view, which shows payloads escaped), and no link or click action on
    agent text. Returns the screen text."""
    text = screen_text(app)
    bad = UNSAFE_CHARS.search(text)
    assert bad is None, (
        f"unsafe character {bad.group()!r} on screen near {text[max(0, bad.start() - 40) : bad.end() + 40]!r}"
    )
    assert raw or hostile.PWNED not in text
    for needle in ("click me", "docs", "osc8 link", "evil.example"):
        for segment in segments_with(app, needle):
            style = segment.style
            if style is None:
                continue
            assert not style.link, f"{segment.text!r} is drawn as a link to {style.link}"
            assert "@click" not in (style.meta or {}), f"{segment.text!r} carries a click action {style.meta}"
    return text


def assert_literal(text: str, *needles: str) -> None:
    for needle in needles:
        assert needle in text, f"{needle!r} is not on the screen"


# --- the tests ----------------------------------------------------------------------------


def test_s1_s4_every_panel_draws_hostile_text_literally(hostile_ws: Workspace) -> None:
    app = make_app(hostile_ws)

    async def scenario(pilot):
        # 1 Decisions: the task gate's reason and questions, and the plan request.
        gates = app.main.query_one(DecisionList)
        assert {row.key for row in gates.rows} == {"task:t1:g-w1-1", "plan:alpha:bob:plan-1"}
        assert gates.select_key("task:t1:g-w1-1")
        await pilot.pause()
        text = assert_safe(app)
        assert_literal(
            text,
            *(f"question {markup}" for markup in hostile.MARKUP),
            hostile.CLICK,
            "\ufffd",
            f"{hostile.AFTER}-question",
            *hostile.BIDI_SHOWN,
            *hostile.OVERWRITTEN,
        )
        assert gates.select_key("plan:alpha:bob:plan-1")
        await pilot.pause()
        assert_literal(assert_safe(app), *hostile.MARKUP, "plans/[bold].md")

        # 2 Roster: every hostile member name, and its detail.
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        assert len(roster.rows) == 3 + len(hostile.HOSTILE_MEMBERS)
        text = assert_safe(app)
        assert_literal(text, "[bold]", "[/x]", "[[a]]", "[$x]", "eve<U+202E>txt")
        assert roster.select_key(f"alpha/{hostile.CLICK}")
        await pilot.pause()
        assert_literal(assert_safe(app), f"{hostile.CLICK} of team alpha")

        # 3 Inbox of the lead: each markup summary, then each body in the preview.
        await pilot.press("3")
        inbox = app.main.query_one(InboxList)
        # bidi, escapes, long line, huge message, bob's plan request
        assert len(inbox.rows) == len(hostile.MARKUP) + len(hostile.OVERWRITES) + 5
        text = assert_safe(app)
        assert_literal(
            text,
            *(f"markup {markup}" for markup in hostile.MARKUP),
            hostile.SUMMARY_ESCAPES,
            hostile.SUMMARY_HUGE,
            hostile.SUMMARY_LONG,
        )
        for index, markup in enumerate(hostile.MARKUP):
            assert inbox.select_key(str(index))
            await pilot.pause()
            assert_literal(assert_safe(app), f"body {markup} end")

        # 4 Tasks: the title, the worker's summary and questions.
        await pilot.press("4")
        await until(pilot, lambda: not busy(app), "the task's joined summary")
        assert_literal(
            assert_safe(app),
            f"title {hostile.CLICK}",
            f"summary {hostile.CLICK}",
            "[link='https://evil.example']docs[/link]",
            "question [[a]]",
        )

        # 5 Events: agent text in payloads.
        await pilot.press("5")
        await pilot.pause()
        assert_literal(assert_safe(app), "task.created", "gate.blocked")
        assert app.is_running and isinstance(app.screen, MainScreen)

    run(app, scenario, size=WIDE)


def test_s1_escape_sequences_become_a_placeholder_and_the_text_after_them_stays(hostile_ws: Workspace) -> None:
    app = make_app(hostile_ws)

    async def scenario(pilot):
        await pilot.press("3")
        inbox = app.main.query_one(InboxList)
        index = next(row.key for row in inbox.rows if hostile.SUMMARY_ESCAPES in row.cells[-1].text)
        assert inbox.select_key(index)
        await pilot.pause()
        text = assert_safe(app)
        before = text.index(f"{hostile.BEFORE}-inbox")
        after = text.index(f"{hostile.AFTER}-inbox")
        # One placeholder per sequence: none swallowed the text that follows it.
        assert text[before:after].count("\ufffd") == hostile.PLACEHOLDERS
        assert "osc8 link" in text[before:after]
        # The footer still draws below the preview (nothing swallowed the frame).
        assert "View raw" in screen_lines(app)[-1]

        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the raw view")
        await pilot.pause()
        raw = assert_safe(app, raw=True)
        assert "\\x1b]52;c;" in raw and "\\x9b2J" in raw and "\\x1b[2J" in raw  # shown escaped, not sent

    run(app, scenario, size=WIDE)


def test_s2_a_click_on_a_click_action_in_agent_text_does_nothing(hostile_ws: Workspace) -> None:
    """`[@click=app.quit]click me[/]` in a gate, a name, a message, a task: clicking the
    words is a click on plain text (the app keeps running on the same screen)."""
    app = make_app(hostile_ws)
    clicked: list[tuple[str, tuple[int, int]]] = []

    async def click_every(pilot, panel: str, select=None) -> None:
        await pilot.press(panel)
        if select is not None:
            assert select()
        await pilot.pause()
        assert_safe(app)
        offsets = find_on_screen(app, "click me")
        assert offsets, f"no 'click me' on panel {panel}"
        for x, y in offsets:
            await pilot.click(offset=(x + 3, y))  # on the "c" of "click me"
            assert app.is_running and app.return_code is None, f"a click at {(x + 3, y)} on panel {panel} quit the app"
            assert isinstance(app.screen, MainScreen)
            clicked.append((panel, (x + 3, y)))

    async def scenario(pilot):
        await click_every(pilot, "1", lambda: app.main.query_one(DecisionList).select_key("task:t1:g-w1-1"))
        await click_every(pilot, "2", lambda: app.main.query_one(RosterList).select_key(f"alpha/{hostile.CLICK}"))
        await click_every(pilot, "3", lambda: app.main.query_one(InboxList).select_key("1"))
        await click_every(pilot, "4")
        assert {panel for panel, _ in clicked} == {"1", "2", "3", "4"}

    run(app, scenario, size=WIDE)


def test_s3_s4_dialogs_show_hostile_text_literally(hostile_ws: Workspace) -> None:
    app = make_app(hostile_ws)

    async def scenario(pilot):
        before = hostile_ws.events_file(hostile.TASK).read_bytes()
        app.main.query_one(DecisionList).select_key("task:t1:g-w1-1")
        await pilot.press("a")
        await until(pilot, lambda: showing(app, ConfirmBar), "the approve dialog")
        await pilot.pause()
        assert_literal(assert_safe(app), f"Approve worker w1 is blocked: summary {hostile.CLICK}", "question [/x]")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))

        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the full gate view")
        await pilot.pause()
        assert_literal(assert_safe(app), "question [$x]", "question [bold")
        await pilot.press("escape")

        await pilot.press("2")
        app.main.query_one(RosterList).select_key("alpha/[/x]")
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the message dialog")
        await pilot.pause()
        assert_literal(assert_safe(app), "Message [/x] (team alpha)")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert hostile_ws.events_file(hostile.TASK).read_bytes() == before

    run(app, scenario, size=WIDE)


def test_s4_command_palette_lists_hostile_names_literally(hostile_ws: Workspace) -> None:
    app = make_app(hostile_ws)

    async def scenario(pilot):
        await pilot.press("ctrl+p")
        await until(pilot, lambda: type(app.screen).__name__ == "CommandPalette", "the command palette")
        for char in "inbox":
            await pilot.press(char)
        await until(pilot, lambda: palette_gathered(app), "the palette's matches")
        assert_literal(assert_safe(app), "[/x] (alpha)", "[[a]] (alpha)")
        assert app.is_running

    run(app, scenario, size=WIDE)


def test_s5_s6_overwrites_stay_visible_and_bidi_controls_are_named(hostile_ws: Workspace) -> None:
    app = make_app(hostile_ws)

    async def scenario(pilot):
        await pilot.press("3")
        inbox = app.main.query_one(InboxList)
        first = len(hostile.MARKUP)
        for offset, hidden in enumerate(hostile.OVERWRITTEN):
            assert inbox.select_key(str(first + offset))
            await pilot.pause()
            text = assert_safe(app)
            assert hidden in text, f"{hidden!r} was overwritten"
        assert inbox.select_key(str(first + len(hostile.OVERWRITES)))
        await pilot.pause()
        assert_literal(assert_safe(app), "invoice<U+202E>gpj.exe", "zero<U+200B>width", "<U+2066>x<U+2069>")

    run(app, scenario, size=WIDE)


def test_s7_huge_message_and_long_line_are_cut_with_a_way_to_read_them(hostile_ws: Workspace) -> None:
    app = make_app(hostile_ws)

    async def scenario(pilot):
        await pilot.press("3")
        inbox = app.main.query_one(InboxList)
        keys = {row.cells[-1].text: row.key for row in inbox.rows}

        assert inbox.select_key(keys[hostile.SUMMARY_LONG])
        await pilot.pause()
        text = assert_safe(app)
        assert f"(truncated, {hostile.LONG_LINE_CHARS:,} characters)" in text
        assert all(cell_len(line) <= WIDE[0] for line in screen_lines(app))

        assert inbox.select_key(keys[hostile.SUMMARY_HUGE])
        await pilot.pause()
        text = assert_safe(app)
        assert f"(truncated, {hostile.HUGE_BYTES:,} characters)" in text and "enter: read all" in text
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the full message")
        await pilot.pause()
        assert f"(truncated, {hostile.HUGE_BYTES:,} characters)" in assert_safe(app)
        await pilot.press("v")  # view raw (escaped)
        await pilot.pause()
        assert "HHHH" in assert_safe(app) and app.screen.raw
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen))  # no hang: each wait has a deadline

    run(app, scenario, size=WIDE)


def test_s4_no_markup_error_when_hostile_text_arrives_while_running(hostile_ws: Workspace) -> None:
    """A new hostile message and output written while the app runs are drawn like the rest."""
    app = make_app(hostile_ws, watch=True, force_polling=False)

    async def scenario(pilot):
        await pilot.press("3")
        hostile.append_raw_inbox(
            hostile_ws,
            hostile.TEAM,
            "team-lead",
            [hostile.agent_message("bob", "late [/bold] stray", "late [/bold] stray " + hostile.escape_text("-late"))],
        )
        inbox = app.main.query_one(InboxList)
        await until(
            pilot, lambda: any("late [/bold] stray" in row.cells[-1].text for row in inbox.rows), "the late message"
        )
        inbox.select_key(inbox.rows[-1].key)
        await pilot.pause()
        assert_literal(assert_safe(app), "late [/bold] stray", f"{hostile.AFTER}-late")
        assert app.is_running and isinstance(app.screen, MainScreen)

    run(app, scenario, size=WIDE)
