"""Panel 8, every file the workspace could not read: its rows."""

from teamdeck.tui.keys import Action, PanelKeys

KEYS = PanelKeys(
    name="problems",
    title="Problems",
    actions=(
        Action(
            id="problem-read",
            scope="problems",
            action="read",
            key="enter",
            label="Read",
            command="Read the selected problem in full",
            help="the whole line (v in it: raw, every control character escaped)",
        ),
    ),
)
