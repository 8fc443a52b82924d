"""Panel 1, the decisions waiting (every kind of decisions/kinds.py): its rows. ``a``
and ``r`` answer the selected decision; which pair depends on its kind: each answer of
each kind's spec is one row. The panel's DOM id stays ``gates`` (the styles, the
tests and the binding ids name it so)."""

from teamdeck.decisions.registry import all_answers
from teamdeck.tui.keys import Action, PanelKeys

KEYS = PanelKeys(
    name="gates",
    title="Decisions",
    actions=(
        Action(
            id="gate-open",
            scope="gates",
            action="open",
            key="enter",
            label="Read",
            command="Read the selected decision",
            help="read the whole request",
        ),
        *(
            Action(
                id=answer.id,
                scope="gates",
                action=f"answer('{answer.action}')",
                key="a" if answer.positive else "r",
                label=answer.label,
                command=answer.command,
                help=answer.help,
                confirmed=True,
            )
            for answer in all_answers()
        ),
    ),
)
