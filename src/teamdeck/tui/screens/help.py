"""``?``: every key, by panel."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS = (
    (
        "Everywhere",
        (
            ("1-7, tab, shift+tab", "switch panel (the numbers are on the tabs)"),
            ("ctrl+p or :", "command palette: every action by name"),
            ("?", "this help"),
            ("esc", "back / close"),
            ("q", "quit"),
            ("up/down, pgup/pgdn, home/end", "move in a list; the mouse works too"),
        ),
    ),
    (
        "1 Decisions",
        (
            ("enter", "read the whole request (questions, plan)"),
            ("a", "approve (optional note, confirmed first)"),
            ("r", "reject (note required, confirmed first)"),
            ("a / r on a FAIL gate", "retry (the task works again) / give up (the task fails)"),
            ("a / r on a permission request", "allow (the tool runs with its input) / deny (reason sent)"),
            ("a / r on a stuck shutdown", "resend (new request id) / force offline (reason logged)"),
        ),
    ),
    (
        "2 Roster",
        (
            ("enter", "open the member's inbox"),
            ("m", "message the member"),
            ("b", "broadcast to the team"),
            ("s", "ask the member to shut down (the handshake shows in its status)"),
            ("p / P", "approve / reject the member's plan"),
            ("d", "deactivate a member that approved shutdown but is still active"),
        ),
    ),
    (
        "3 Inbox",
        (
            ("enter", "read the whole message; on an idle fold (idle ×7): show them all"),
            ("e", "show an idle fold one by one, or fold it again"),
            ("v", "view it raw (escaped)"),
            ("m", "reply to the member"),
        ),
    ),
    (
        "4 Tasks",
        (
            ("j", "run the join again"),
            ("enter", "read the joined summary"),
            ("v", "verdict history with evidence"),
            ("t", "move to a state the lifecycle allows (picker)"),
            ("g", "verify with the task's guardian"),
            ("R", "retry a blocked task"),
            ("x", "cancel the task"),
            ("o", "team task (Claude Code task list): reassign to a member of its team (picker)"),
            ("p", "team task: mark it pending again (confirmed first)"),
        ),
    ),
    ("5 Events", (("/", "filter"), ("o", "load older events"), ("enter", "read the whole record"))),
    ("6 Plans", (("enter", "focus the waves"), ("x", "run the plan (teamdeck plan run), confirmed first"))),
    ("7 Issues", (("enter", "open a parent's waiting round review in 1 Decisions"),)),
)


class HelpScreen(ModalScreen[None]):
    """The keys, grouped by panel."""

    BINDINGS = [Binding("escape,q,question_mark", "close", "Close", id="help-close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog", classes="dialog dialog--wide dialog--tall"):
            yield Static(Content.styled("teamdeck keys", "bold"), classes="dialog--title")
            with VerticalScroll(classes="dialog--body"):
                yield Static(help_content())

    def action_close(self) -> None:
        self.dismiss(None)


def help_content() -> Content:
    parts: list[str | tuple[str, str]] = []
    for group, keys in KEYS:
        parts.append((f"{group}\n", "bold $accent"))
        for key, what in keys:
            parts += [(f"  {key:<34}", "bold"), f"{what}\n"]
        parts.append("\n")
    parts.append(("--read-only disables every action (shown greyed in the footer).", "$text-muted"))
    return Content.assemble(*parts)
