"""Panel 7, the forge's issues and their rounds: its rows."""

from teamdeck.tui.keys import Action, PanelKeys

KEYS = PanelKeys(
    name="issues",
    title="Issues",
    actions=(
        Action(
            id="issue-decision",
            scope="issues",
            action="decision",
            key="enter",
            label="Round review",
            command="Open the selected issue's round review",
            help="open a parent's waiting round review in 1 Decisions",
        ),
    ),
)
