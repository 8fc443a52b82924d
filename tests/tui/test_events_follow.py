"""The events panel follows new lines while its cursor is on the last row, like
``tail -f``: also after the rows first outgrow the view (where it used to stop), and
it stays put once the person moves the cursor up."""

from __future__ import annotations

from support.pilot_helpers import make_app, run, until

from teamdeck.protocol.common.written import recorded
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.tui.panels.events.event_list import EventList

SMALL = (100, 24)


def _send(app, count: int, start: int) -> None:
    """``count`` messages to alice, written by 'another process', then the refresh the
    watcher would ask for (the paths each write changed)."""
    for number in range(start, start + count):
        done = recorded(lambda n=number: send_message(app.ws, "alpha", "alice", f"line {n}", summary=f"line {n}"))
        app.paths_changed(done.written)


def _last_visible(events: EventList) -> int:
    return int(events.scroll_offset.y) + events.scrollable_content_region.height - 1


def test_the_events_tail_follows_past_the_first_screenful_and_stops_when_the_cursor_leaves_the_end(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("5")
        events = app.main.query_one(EventList)
        await until(pilot, lambda: events.size.height > 0 and len(events.rows) > 0, "the events panel")
        height = events.scrollable_content_region.height
        total = len(events.rows)
        sent = 0
        for _round in range(3):  # the rows outgrow the view in the first round and keep growing
            _send(app, height, sent)
            sent += height
            await until(pilot, lambda: len(events.rows) >= total + sent and app.settled, "the new lines")
            await until(pilot, lambda: _last_visible(events) >= len(events.rows) - 1, "the view at the end")
            assert events.cursor == len(events.rows) - 1
            assert any(f"line {sent - 1}" in cell.text for cell in events.rows[-1].cells)
        # The person moves up: new lines arrive, the cursor and the view stay where they are.
        await pilot.press("up", "up")
        cursor, top = events.cursor, int(events.scroll_offset.y)
        _send(app, 5, sent)
        await until(pilot, lambda: len(events.rows) >= total + sent + 5 and app.settled, "more lines")
        await pilot.pause()
        assert events.cursor == cursor and int(events.scroll_offset.y) == top
        # End brings it back to following.
        await pilot.press("end")
        _send(app, 3, sent + 5)
        await until(pilot, lambda: len(events.rows) >= total + sent + 8 and app.settled, "the last lines")
        await until(pilot, lambda: _last_visible(events) >= len(events.rows) - 1, "following again")
        assert events.cursor == len(events.rows) - 1

    run(app, scenario, size=SMALL)
