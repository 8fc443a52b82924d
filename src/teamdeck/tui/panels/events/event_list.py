"""The live tail of every event log and every team's messages.jsonl."""

from __future__ import annotations

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.snapshot.events import EventRow


class EventList(LineList):
    """One row per log record (line API); follows the end while the cursor is there."""

    REST_MIN = 20

    def show(self, events: tuple[EventRow, ...], query: str = "") -> None:
        """Show the ``events`` that match ``query``; with the date when they span days."""
        shown = [event for event in events if matches(event, query)] if query else events
        dated = bool(events) and events[0].ts[:10] != events[-1].ts[:10]
        self.set_rows(
            self.memo.rows(shown, lambda event: event_row(event, dated=dated), lambda _event: dated), follow=True
        )


def matches(event: EventRow, query: str) -> bool:
    """Whether ``event`` contains ``query`` (any field, case-insensitive)."""
    if not query:
        return True
    needle = query.lower()
    return any(needle in field.lower() for field in (event.source, event.kind, event.actor, event.text, event.ts))


def event_row(event: EventRow, *, dated: bool = False) -> Row:
    """The row of ``event``: its time (``02-09 15:08:11`` when ``dated``), source, kind,
    who and what."""
    clock = event.ts[11:19] if len(event.ts) >= 19 else event.ts
    if dated and len(event.ts) >= 19:
        clock = f"{event.ts[5:10]} {clock}"
    return Row(
        event.id or f"{event.path}@{event.ts}#{id(event)}",
        (
            Cell(cell(clock, 20), 14 if dated else 8, "line-list--dim"),
            Cell(cell(event.source, 64), 28),
            Cell(cell(event.kind, 64), 24, "line-list--accent"),
            Cell(cell(event.actor, 64), 20, "line-list--bold"),
            Cell(cell(event.text, 300)),
        ),
    )
