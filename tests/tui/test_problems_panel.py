"""The Problems panel and the notices of files breaking: a file broken while the app
watches is told once (not again at each refresh), listed in panel 8 as
``teamdeck status --json`` lists it, marked on the roster where the roster shows its
last good read; fixed, it is told again and leaves the list."""

from __future__ import annotations

from datetime import UTC, datetime

from support.pilot_helpers import lines_of, make_app, palette_gathered, run, type_text, until

from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.panels.problems.panel import ProblemsPanel
from teamdeck.tui.panels.problems.problem_list import ProblemList, problem_row
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.problem_news import ProblemNotices
from teamdeck.tui.registry import help_sections
from teamdeck.view.snapshot.workspace import Problem, TaskView, WorkspaceSnapshot

CONFIG = "teams/alpha/config.json"
HOSTILE = "\x1b[2J\x1b]0;pwned\x07[bold red]boom[/] \u202eevil\x9b31m"


def _notices(app, title: str) -> list[str]:
    """The messages of the notices up now with ``title``."""
    return [notice.message for notice in app.notices() if notice.title == title]


def _broken_notices(app) -> list[str]:
    return _notices(app, "File broken (8 Problems)")


def test_a_file_broken_while_watched_is_told_listed_marked_and_gone_once_fixed(world, run_cli) -> None:
    config = world.root / CONFIG
    good = config.read_text()
    assert "," in good
    app = make_app(world, watch=True)

    async def scenario(pilot):
        await pilot.press("8")
        problems = app.main.query_one(ProblemList)
        await until(pilot, lambda: bool(problems.rows), "the problems already there (w3's output)")
        assert not _broken_notices(app)  # what was broken at the start is no news

        config.write_text(good.replace(",", "", 1))
        await until(pilot, lambda: any(row.key.startswith(CONFIG) for row in problems.rows), "config.json listed")
        listed = [tuple(cell.text for cell in row.cells) for row in problems.rows]
        status = run_cli(world.root, "status", "--json").json["problems"]
        assert listed == [(problem["file"], problem["where"], problem["problem"]) for problem in status]
        await until(pilot, lambda: bool(_broken_notices(app)), "the notice of the broken file")
        [told] = _broken_notices(app)
        assert told.startswith(f"{CONFIG} line ")
        assert told == next(problem.text for problem in app.snapshot.problems if problem.path == CONFIG)

        # Broken otherwise (another save of the same edit): the same broken file, no news.
        config.write_text("{" + good)
        await until(
            pilot,
            lambda: any(row.key.startswith(CONFIG) and row.key != told for row in problems.rows),
            "config.json broken at another place",
        )
        await until(pilot, lambda: app.settled, "every change read")
        assert _broken_notices(app) == [told]

        # Selected, the whole line: as the CLI prints it.
        problem = next(problem for problem in app.snapshot.problems if problem.path == CONFIG)
        assert problems.select_key(problem.text)
        await pilot.pause()
        detail = app.main.query_one("#problem-detail")
        assert str(detail.content) == problem.text
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the line in full")
        assert app.screen.text == problem.text
        await pilot.press("escape")

        # The roster shows the last good read of alpha, and says so.
        await pilot.press("2")
        roster = app.main.query_one(RosterList)
        await until(pilot, lambda: bool(roster.rows), "the roster")
        assert roster.select_key("alpha/alice")
        await pilot.pause()
        assert any("alice" in line and "alpha: last good read" in line for line in lines_of(roster))
        member_detail = str(app.main.query_one("#member-detail-text").content)
        assert "config.json is broken: showing the last good read" in member_detail
        assert problem.text in member_detail

        config.write_text(good)
        await until(pilot, lambda: _notices(app, "File fixed") == [f"{CONFIG} reads again"], "the notice of the fix")
        assert not _broken_notices(app)  # the break's notice went with it
        await pilot.press("8")
        await until(pilot, lambda: not any(row.key.startswith(CONFIG) for row in problems.rows), "config.json gone")
        await pilot.press("2")
        await until(pilot, lambda: not any("last good read" in line for line in lines_of(roster)), "the mark gone")

    run(app, scenario)


def test_files_broken_at_once_are_one_notice(world) -> None:
    app = make_app(world, watch=True)
    names = ("team-lead", "alice", "bob")

    async def scenario(pilot):
        for name in names:
            (world.root / f"teams/alpha/inboxes/{name}.json").write_text("[{")
        await until(
            pilot,
            lambda: any(notice.title == "3 files broken (8 Problems)" for notice in app.notices()),
            "one notice of the three",
        )
        notices = [notice for notice in app.notices() if "broken" in notice.title]
        assert len(notices) == 1, [notice.title for notice in notices]
        assert all(f"inboxes/{name}.json" in notices[0].message for name in names)

    run(app, scenario)


def test_the_palette_finds_the_problems(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("ctrl+p")
        await type_text(pilot, "problems")
        await until(pilot, lambda: palette_gathered(app), "the palette's matches")
        await pilot.press("enter")
        await until(pilot, lambda: app.main.current_panel == "problems", "panel 8")
        assert app.main.focused is app.main.query_one(ProblemsPanel).list

    run(app, scenario)


def test_the_help_names_the_problems_panel_and_its_key() -> None:
    sections = dict(help_sections())
    assert "8 Problems" in sections
    assert any(key.startswith("1, ") and key.endswith(", 8") for key, _what in sections["Everywhere"])


def test_a_problem_row_is_sanitised() -> None:
    row = problem_row(Problem(f"teams/{HOSTILE}/config.json", HOSTILE, HOSTILE), "k")
    for cell in row.cells:
        assert not any(char in cell.text for char in "\x1b\x07\x9b\u202e"), cell.text


def _snapshot(*problems: Problem, tasks=()) -> WorkspaceSnapshot:
    return WorkspaceSnapshot(root="/ws", taken_at=datetime(2026, 1, 1, tzinfo=UTC), problems=problems, tasks=tasks)


def test_breaks_over_a_few_refreshes_are_one_notice_and_a_fix_takes_it_down() -> None:
    notices = ProblemNotices("8 Problems")
    a, b = Problem("teams/a/config.json", "line 1", "bad"), Problem("teams/b/config.json", "line 2", "bad")
    drop, [first] = notices.news(_snapshot(), _snapshot(a))
    assert not drop
    assert (first.title, first.message) == ("File broken (8 Problems)", "teams/a/config.json line 1: bad")
    # The same file broken at another place: no news.
    assert notices.news(_snapshot(a), _snapshot(Problem(a.path, "line 9", "worse"))) == ([], [])
    drop, [both] = notices.news(_snapshot(a), _snapshot(a, b))
    assert drop == [first] and both.title == "2 files broken (8 Problems)"
    drop, [fixed] = notices.news(_snapshot(a, b), _snapshot(b))
    assert not drop and fixed.title == "File fixed" and fixed.message == "teams/a/config.json reads again"
    drop, [fixed] = notices.news(_snapshot(b), _snapshot())
    assert drop == [both] and fixed.message == "teams/b/config.json reads again"


def test_outputs_not_read_yet_are_no_news_when_read() -> None:
    unchecked = TaskView(id="t1", outputs_checked=False)
    invalid = Problem("tasks/t1", "", "agents/w3/artifacts/final.json: invalid")
    assert ProblemNotices("8 Problems").news(_snapshot(tasks=(unchecked,)), _snapshot(invalid)) == ([], [])
