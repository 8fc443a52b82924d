"""Panel 3, the inbox of the member selected in the roster: its rows."""

from teamdeck.tui.keys import Action, PanelKeys

KEYS = PanelKeys(
    name="inbox",
    title="Inbox",
    actions=(
        Action(
            id="message-read",
            scope="inbox",
            action="read",
            key="enter",
            label="Read",
            command="Read the selected message",
            help="read the whole message; on an idle fold: show them all",
        ),
        Action(
            id="message-fold",
            scope="inbox",
            action="toggle_fold",
            key="e",
            label="Expand/fold",
            command="Show the selected idle fold one by one (or fold it)",
            help="show an idle fold one by one, or fold it again",
        ),
        Action(
            id="message-raw",
            scope="inbox",
            action="raw",
            key="v",
            label="View raw",
            command="View the selected message raw",
            help="view it raw (escaped)",
        ),
        Action(
            id="inbox-idle",
            scope="inbox",
            action="toggle_idle",
            key="i",
            label="Idle on/off",
            command="Hide or show idle notifications in the inbox",
            help="hide idle notifications (or show them again)",
        ),
        Action(
            id="message-reply",
            scope="inbox",
            action="reply",
            key="m",
            label="Message",
            command="Reply to the inbox's member",
            help="reply to the member",
        ),
    ),
)
