"""The Events panel on Claude Code data: the timeline is built from the inboxes and the
team's task list (real Claude Code writes no log of its own, so Events said "0
events"); the date shows when the rows span days; ``enter`` shows a record indented,
with the protocol message in its ``text`` decoded."""

from __future__ import annotations

import json

import pytest
from support.pilot_helpers import lines_of, make_app, run, until

from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.store.workspace import Workspace
from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.panels.events.event_list import EventList
from teamdeck.view.refresh.build import build_snapshot, refresh, retime


async def _timeline(pilot, app, shown: str) -> list[str]:
    """Open Events and wait for ``shown`` in it; its lines that are not blank."""
    await pilot.press("5")
    events = app.main.query_one(EventList)
    await until(pilot, lambda: any(shown in line for line in lines_of(events)), "the timeline")
    return [line for line in lines_of(events) if line.strip()]


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_the_timeline_of_a_real_team(capture: Workspace, size: tuple[int, int]) -> None:
    app = make_app(capture)

    async def scenario(pilot) -> None:
        lines = await _timeline(pilot, app, "task_assignment")
        assert lines[0].startswith(" 15:08:11 ") and "task_assignment" in lines[0]
        assert any("idle_notification" in line for line in lines)
        assert any("task completed" in line and "#3" in line for line in lines)  # the task list, at #3's message
        assert "events" in str(app.main.query_one("#events-title").render()) and "0 events" not in str(
            app.main.query_one("#events-title").render()
        )
        await pilot.press("end", "enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the record")
        body = str(app.screen.query_one("#text-body").render())
        assert '\n  "from": "team-lead",' in body
        assert "Resume writing team config analysis" in body

    run(app, scenario, size)


def test_a_protocol_message_is_shown_decoded(capture: Workspace) -> None:
    app = make_app(capture)

    async def scenario(pilot) -> None:
        await _timeline(pilot, app, "task_assignment")
        await pilot.press("home", "enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen), "the record")
        body = str(app.screen.query_one("#text-body").render())
        assert '"text": {\n    "type": "task_assignment",' in body
        assert '"taskId": "1",' in body

    run(app, scenario)


def test_dates_show_when_the_timeline_spans_days(capture: Workspace) -> None:
    inbox = capture.root / "teams" / "analysis-team" / "inboxes" / "team-lead.json"
    entries = json.loads(inbox.read_text())
    entries.append(
        {"from": "config-analyst", "text": "next day", "timestamp": "2026-02-10T08:00:00.000Z", "read": True}
    )
    inbox.write_text(json.dumps(entries))
    app = make_app(capture)

    async def scenario(pilot) -> None:
        lines = await _timeline(pilot, app, "next day")
        assert lines[0].startswith(" 02-09 15:08:11 ")
        assert any(line.startswith(" 02-10 08:00:00 ") for line in lines)

    run(app, scenario)


def test_a_message_teamdeck_sent_is_one_row_not_two(capture: Workspace) -> None:
    before = len(build_snapshot(capture).events)
    send_message(capture, "analysis-team", "config-analyst", "carry on", summary="carry on")
    after = build_snapshot(capture).events
    assert len(after) == before + 1  # the messages.jsonl record; its inbox copy is not a second row
    assert after[-1].path.endswith("messages.jsonl")


def test_refreshes_add_each_row_once(capture: Workspace) -> None:
    """A refresh merges new log rows into the logs' own tail, not into the events of the
    last snapshot (which hold the inbox rows already), and a retime keeps them as they are."""
    snapshot = build_snapshot(capture)
    before = len(snapshot.events)
    send_message(capture, "analysis-team", "config-analyst", "carry on", summary="carry on")
    team = capture.team_dir("analysis-team")
    snapshot = refresh(snapshot, [team / "messages.jsonl", team / "inboxes" / "config-analyst.json"])
    assert len(snapshot.events) == before + 1
    inbox = capture.inbox("analysis-team", "team-lead")
    entries = json.loads(inbox.read_text())
    entries.append({"from": "config-analyst", "text": "done", "timestamp": "2026-02-09T16:00:00.000Z", "read": False})
    inbox.write_text(json.dumps(entries))
    snapshot = refresh(snapshot, [inbox])
    assert len(snapshot.events) == before + 2
    assert len(retime(snapshot).events) == before + 2
    assert len({row.id for row in snapshot.events}) == len(snapshot.events)
