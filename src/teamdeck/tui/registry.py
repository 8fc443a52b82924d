"""Every action of the TUI, once: its id, key, footer label, palette name, the panel
whose method handles it, and its line in the help screen.

The panels' ``BINDINGS`` (and so the footer), the main screen's and the app's, the
command palette (tui/commands.py) and the help screen (tui/screens/help.py) are all
generated from :data:`ACTIONS`; nothing else names a key. Whether an action is enabled
right now is asked of one place, the handling panel's ``check_action`` (True: shown and
runnable; None: shown greyed; False: hidden, another action owns the key now), which
Textual consults for the key and the footer and the palette consults for its list; the
rules behind it are protocol predicates (``can_*``) wherever a write is concerned.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache

from textual.binding import Binding, BindingType

from teamdeck.decisions.registry import all_answers

PANEL_TITLES = {
    "gates": "1 Decisions",
    "roster": "2 Roster",
    "inbox": "3 Inbox",
    "tasks": "4 Tasks",
    "events": "5 Events",
    "plans": "6 Plans",
    "issues": "7 Issues",
}
"""The panels in tab order, with their tab titles (the number is the panel's key)."""
EVERYWHERE = "Everywhere"


@dataclass(frozen=True)
class Action:
    """One thing a person can do.

    Attributes:
        id: unique; the binding id (keymaps can rebind it).
        scope: the panel that handles it (a key of :data:`PANEL_TITLES`), or ``main``
            (the main screen) or ``app``.
        action: the Textual action string; ``action_<name>`` of the scope handles it.
        key: the Textual key (``a``, ``enter``, ``slash``).
        label: the footer's label.
        command: the palette's name for it (acting on what is selected), or None when the
            palette would only open itself (the palette key).
        help: the help screen's line.
        show: whether the footer shows it.
        priority: a priority binding (checked before the focused widget's).
    """

    id: str
    scope: str
    action: str
    key: str
    label: str
    command: str | None
    help: str
    show: bool = True
    priority: bool = False

    @property
    def name(self) -> str:
        """The action's method name (``panel('gates')`` → ``panel``)."""
        return self.action.split("(", 1)[0]

    @property
    def parameters(self) -> tuple[object, ...]:
        """The action's parameters (``answer('allow')`` → ``('allow',)``)."""
        return _parameters(self.action)

    @property
    def key_text(self) -> str:
        """The key as a person reads it."""
        return ", ".join(KEY_TEXT.get(key, key) for key in self.key.split(","))


@cache
def _parameters(action: str) -> tuple[object, ...]:
    """The parameters of an action string, parsed once (the footer asks every visible
    key's on each change)."""
    _name, _, rest = action.partition("(")
    return tuple(ast.literal_eval(f"({rest[:-1]},)")) if rest else ()


KEY_TEXT = {"slash": "/", "question_mark": "?", "colon": ":", "escape": "esc", "shift+tab": "shift+tab"}

ACTIONS: tuple[Action, ...] = (
    Action("quit", "app", "quit", "q", "Quit", "Quit teamdeck", "quit"),
    Action("help", "app", "help", "question_mark", "Help", "Help: every key", "this help"),
    # Declaring a command_palette binding stops Textual adding its own ctrl+p: keep both.
    Action(
        "palette",
        "app",
        "command_palette",
        "ctrl+p",
        "Commands",
        None,
        "command palette: every action by name",
        show=False,
        priority=True,
    ),
    Action("palette-colon", "app", "command_palette", "colon", "Commands", None, "command palette too", show=False),
    *(
        Action(
            f"panel-{panel}",
            "main",
            f"panel('{panel}')",
            str(number),
            title[2:],
            f"Go to {title[2:]}",
            "switch panel",
            show=False,
        )
        for number, (panel, title) in enumerate(PANEL_TITLES.items(), 1)
    ),
    Action("next-panel", "main", "next_panel(1)", "tab", "Next panel", "Next panel", "next panel", False, True),
    Action(
        "previous-panel",
        "main",
        "next_panel(-1)",
        "shift+tab",
        "Previous panel",
        "Previous panel",
        "previous panel",
        False,
        True,
    ),
    Action(
        "back", "main", "back", "escape", "Back", "Back", "back: close the filter, or the inbox to the roster", False
    ),
    # 1 Decisions: a and r answer the selected decision; which pair depends on its kind
    # (each answer of each kind's spec, decisions/kinds.py, is one binding).
    Action(
        "gates-filter",
        "gates",
        "filter",
        "slash",
        "Filter",
        f"Filter {PANEL_TITLES['gates'][2:]}",
        "filter: keep the rows that contain a text",
        show=False,
    ),
    Action("gate-open", "gates", "open", "enter", "Read", "Read the selected decision", "read the whole request"),
    *(
        Action(
            answer.id,
            "gates",
            f"answer('{answer.action}')",
            "a" if answer.positive else "r",
            answer.label,
            answer.command,
            answer.help,
        )
        for answer in all_answers()
    ),
    # 2 Roster
    Action(
        "roster-filter",
        "roster",
        "filter",
        "slash",
        "Filter",
        f"Filter {PANEL_TITLES['roster'][2:]}",
        "filter: keep the rows that contain a text",
        show=False,
    ),
    Action("member-inbox", "roster", "open_inbox", "enter", "Inbox", "Open the selected member's inbox", "its inbox"),
    Action("member-message", "roster", "message", "m", "Message", "Message the selected member", "message the member"),
    Action(
        "team-broadcast",
        "roster",
        "broadcast",
        "b",
        "Broadcast",
        "Broadcast to the selected member's team",
        "broadcast",
    ),
    Action(
        "member-shutdown",
        "roster",
        "shutdown",
        "s",
        "Shutdown",
        "Ask the selected member to shut down",
        "ask the member to shut down (the handshake shows in its status)",
    ),
    Action(
        "plan-approve",
        "roster",
        "plan_approve",
        "p",
        "Approve plan",
        "Approve the selected member's plan",
        "approve its plan",
    ),
    Action(
        "plan-reject",
        "roster",
        "plan_reject",
        "P",
        "Reject plan",
        "Reject the selected member's plan",
        "reject its plan",
    ),
    Action(
        "member-deactivate",
        "roster",
        "deactivate",
        "d",
        "Deactivate",
        "Deactivate the selected member",
        "deactivate a member that approved shutdown but is still active",
    ),
    Action(
        "member-run-log",
        "roster",
        "run_log",
        "l",
        "Run log",
        "Show the selected member's run log (live)",
        "its latest run (teamdeck run): record, events, output, live",
        show=False,  # the footer is full: the member detail names these keys for a member that runs
    ),
    Action(
        "member-wake",
        "roster",
        "wake",
        "w",
        "Wake",
        "Wake the selected member now (teamdeck run starts it)",
        "wake it now: the runner starts a run",
        show=False,  # the footer is full: the member detail names these keys for a member that runs
    ),
    Action(
        "member-stop-run",
        "roster",
        "stop_run",
        "x",
        "Stop run",
        "Stop the selected member's run",
        "stop its run (SIGTERM, grace, SIGKILL; not retried)",
        show=False,  # the footer is full: the member detail names these keys for a member that runs
    ),
    # 3 Inbox
    Action(
        "inbox-filter",
        "inbox",
        "filter",
        "slash",
        "Filter",
        f"Filter {PANEL_TITLES['inbox'][2:]}",
        "filter: keep the rows that contain a text",
        show=False,
    ),
    Action(
        "message-read",
        "inbox",
        "read",
        "enter",
        "Read",
        "Read the selected message",
        "read the whole message; on an idle fold: show them all",
    ),
    Action(
        "message-fold",
        "inbox",
        "toggle_fold",
        "e",
        "Expand/fold",
        "Show the selected idle fold one by one (or fold it)",
        "show an idle fold one by one, or fold it again",
    ),
    Action("message-raw", "inbox", "raw", "v", "View raw", "View the selected message raw", "view it raw (escaped)"),
    Action(
        "inbox-idle",
        "inbox",
        "toggle_idle",
        "i",
        "Idle on/off",
        "Hide or show idle notifications in the inbox",
        "hide idle notifications (or show them again)",
    ),
    Action("message-reply", "inbox", "reply", "m", "Message", "Reply to the inbox's member", "reply to the member"),
    # 4 Tasks: a teamdeck task's lifecycle keys, then the join, then a team task's keys.
    Action(
        "tasks-filter",
        "tasks",
        "filter",
        "slash",
        "Filter",
        f"Filter {PANEL_TITLES['tasks'][2:]}",
        "filter: keep the rows that contain a text",
        show=False,
    ),
    Action("task-verdicts", "tasks", "verdicts", "v", "Verdicts", "Verdicts of the selected task", "verdict history"),
    Action(
        "task-transition",
        "tasks",
        "transition",
        "t",
        "Move…",
        "Move the selected task to another state",
        "move to a state the lifecycle allows (picker)",
    ),
    Action("task-verify", "tasks", "verify", "g", "Verify", "Verify the selected task with its guardian", "verify it"),
    Action("task-retry", "tasks", "retry", "R", "Retry", "Retry the selected task", "retry a blocked task"),
    Action("task-cancel", "tasks", "cancel_task", "x", "Cancel task", "Cancel the selected task", "cancel the task"),
    Action("task-join", "tasks", "join", "J", "Join again", "Join the selected task again", "run the join again"),
    Action("task-summary", "tasks", "read", "enter", "Summary", "Read the selected task's summary", "its summary"),
    Action(
        "team-task-reassign",
        "tasks",
        "reassign",
        "o",
        "Reassign…",
        "Reassign the selected team task",
        "team task (Claude Code task list): reassign to a member of its team (picker)",
    ),
    Action(
        "team-task-pending",
        "tasks",
        "mark_pending",
        "p",
        "Mark pending",
        "Mark the selected team task pending",
        "team task: mark it pending again",
    ),
    # 5 Events
    Action("events-filter", "events", "filter", "slash", "Filter", "Filter the events", "filter"),
    Action("events-older", "events", "older", "o", "Older", "Load older events", "load older events"),
    Action("events-read", "events", "read", "enter", "Record", "Read the selected event", "read the whole record"),
    # 6 Plans
    Action(
        "plans-filter",
        "plans",
        "filter",
        "slash",
        "Filter",
        f"Filter {PANEL_TITLES['plans'][2:]}",
        "filter: keep the rows that contain a text",
        show=False,
    ),
    Action("plan-run", "plans", "run", "x", "Run plan", "Run the selected plan (plan run)", "run the plan (plan run)"),
    Action("plan-waves", "plans", "read", "enter", "Waves", "Show the selected plan's waves", "focus the waves"),
    # 7 Issues
    Action(
        "issues-filter",
        "issues",
        "filter",
        "slash",
        "Filter",
        f"Filter {PANEL_TITLES['issues'][2:]}",
        "filter: keep the rows that contain a text",
        show=False,
    ),
    Action(
        "issue-decision",
        "issues",
        "decision",
        "enter",
        "Round review",
        "Open the selected issue's round review",
        "open a parent's waiting round review in 1 Decisions",
    ),
)
"""Every action, in the order of the footer and the help screen."""

CONFIRMED = frozenset(
    {
        *(answer.id for answer in all_answers()),
        "member-shutdown",
        "plan-approve",
        "plan-reject",
        "member-deactivate",
        "task-verify",
        "task-retry",
        "task-cancel",
        "team-task-pending",
        "plan-run",
    }
)
"""Actions that ask in the confirm bar first (the help screen says so)."""

BY_ID = {action.id: action for action in ACTIONS}


def scope_actions(scope: str) -> tuple[Action, ...]:
    """The actions handled by ``scope`` (a panel, ``main`` or ``app``), in order."""
    return tuple(action for action in ACTIONS if action.scope == scope)


def bindings(scope: str) -> list[BindingType]:
    """The ``BINDINGS`` of ``scope``: one binding per action."""
    return [
        Binding(action.key, action.action, action.label, show=action.show, id=action.id, priority=action.priority)
        for action in scope_actions(scope)
    ]


def find(scope: str, name: str, *parameters: object) -> Action:
    """The action ``name`` (method name) of ``scope`` with ``parameters``; KeyError when
    there is none."""
    for action in scope_actions(scope):
        if action.name == name and action.parameters == parameters:
            return action
    raise KeyError(f"{scope}.{name}{parameters or ''}")


def help_sections() -> list[tuple[str, list[tuple[str, str]]]]:
    """The help screen: (heading, [(key, what)]) for everywhere and each panel."""
    panel_keys = [action for action in ACTIONS if action.id.startswith("panel-")]
    everywhere = [(", ".join(action.key for action in panel_keys), "switch panel (the numbers are on the tabs)")]
    everywhere += [
        (action.key_text, action.help)
        for action in ACTIONS
        if action.scope in ("app", "main") and action not in panel_keys
    ]
    everywhere.append(("up/down j/k pgup/pgdn home/end", "move in a list; the mouse works too"))
    sections = [(EVERYWHERE, everywhere)]
    for panel, title in PANEL_TITLES.items():
        lines = []
        for action in scope_actions(panel):
            asked = "; confirmed first" if action.id in CONFIRMED else ""
            lines.append((action.key_text, action.help + asked))
        sections.append((title, lines))
    return sections
