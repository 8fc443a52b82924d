"""Panel 6, the plans and their waves: its rows."""

from teamdeck.tui.keys import Action, PanelKeys

KEYS = PanelKeys(
    name="plans",
    title="Plans",
    actions=(
        Action(
            id="plan-run",
            scope="plans",
            action="run",
            key="x",
            label="Run plan",
            command="Run the selected plan (plan run)",
            help="run the plan (plan run)",
            confirmed=True,
        ),
        Action(
            id="plan-waves",
            scope="plans",
            action="read",
            key="enter",
            label="Waves",
            command="Show the selected plan's waves",
            help="focus the waves",
        ),
    ),
)
