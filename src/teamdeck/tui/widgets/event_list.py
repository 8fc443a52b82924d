"""The live tail of every event log and every team's messages.jsonl."""

from __future__ import annotations

from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.eventlog import EventRow


class EventList(LineList):
    """One row per log record (line API); follows the end while the cursor is there."""

    def show(self, events: tuple[EventRow, ...], query: str = "") -> None:
        shown = [event for event in events if matches(event, query)] if query else events
        self.set_rows(self.memo.rows(shown, event_row), follow=True)


def matches(event: EventRow, query: str) -> bool:
    """Whether ``event`` contains ``query`` (any field, case-insensitive)."""
    if not query:
        return True
    needle = query.lower()
    return any(needle in field.lower() for field in (event.source, event.kind, event.actor, event.text, event.ts))


def event_row(event: EventRow) -> Row:
    clock = event.ts[11:19] if len(event.ts) >= 19 else event.ts
    return Row(
        event.id or f"{event.path}@{event.ts}#{id(event)}",
        (
            Cell(cell(clock, 20), 8, "line-list--dim"),
            Cell(cell(event.source, 64), 16),
            Cell(cell(event.kind, 64), 24, "line-list--accent"),
            Cell(cell(event.actor, 64), 20, "line-list--bold"),
            Cell(cell(event.text, 300)),
        ),
    )
