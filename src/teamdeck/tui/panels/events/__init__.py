"""Panel 5, the live tail of events and messages: its rows. Its ``/`` is its own (a
query line under the list, shown in the footer), not the base panel's filter."""

from teamdeck.tui.keys import Action, PanelKeys

KEYS = PanelKeys(
    name="events",
    title="Events",
    filter=False,
    actions=(
        Action(
            id="events-filter",
            scope="events",
            action="filter",
            key="slash",
            label="Filter",
            command="Filter the events",
            help="filter",
        ),
        Action(
            id="events-older",
            scope="events",
            action="older",
            key="o",
            label="Older",
            command="Load older events",
            help="load older events",
        ),
        Action(
            id="events-read",
            scope="events",
            action="read",
            key="enter",
            label="Record",
            command="Read the selected event",
            help="read the whole record",
        ),
    ),
)
