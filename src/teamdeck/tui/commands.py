"""The command palette (``ctrl+p`` or ``:``): every action of every panel by name, plus
one command per decision waiting and per member, so a person can type
"approve g-w1" or "shutdown alice" instead of navigating."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.style import Style

from teamdeck.tui.item_commands import item_commands
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.gates_panel import answers

if TYPE_CHECKING:
    from teamdeck.tui.app import TeamdeckApp

PANEL_ACTIONS = (
    # (panel, action, name, help)
    ("gates", "approve", "Approve the selected decision", "a: approve the selected gate or plan (confirm first)"),
    ("gates", "reject", "Reject the selected decision", "r: reject with a note (confirm first)"),
    ("gates", "open", "Read the selected decision", "enter: questions, reason, plan"),
    ("gates", "retry", "Retry the selected FAIL gate", "a: the task works again (confirm first)"),
    ("gates", "give_up", "Give up the selected FAIL gate", "r: the task fails (confirm first)"),
    ("gates", "allow", "Allow the selected permission request", "a: the tool runs with its input (confirm first)"),
    ("gates", "deny", "Deny the selected permission request", "r: with a reason for the teammate (confirm first)"),
    ("gates", "resend", "Resend the selected stuck shutdown request", "a: a new request id; the old one superseded"),
    ("gates", "force", "Force the member of the stuck shutdown offline", "r: isActive false, reason logged"),
    ("roster", "message", "Message the selected member", "m: a message from the team lead"),
    ("roster", "broadcast", "Broadcast to the selected member's team", "b: a message to every member"),
    ("roster", "shutdown", "Ask the selected member to shut down", "s: start the shutdown handshake"),
    ("roster", "plan_approve", "Approve the selected member's plan", "p: answer its plan approval request"),
    ("roster", "plan_reject", "Reject the selected member's plan", "P: answer with feedback"),
    (
        "roster",
        "deactivate",
        "Deactivate the selected member",
        "d: for a member that approved shutdown but stays active",
    ),
    ("roster", "open_inbox", "Open the selected member's inbox", "enter"),
    ("inbox", "read", "Read the selected message", "enter: the whole text"),
    ("inbox", "raw", "View the selected message raw", "v: every control character escaped"),
    ("inbox", "toggle_fold", "Show the selected idle fold one by one (or fold it)", "e or enter"),
    ("tasks", "join", "Join the selected task again", "j: rebuild the summary and gates"),
    ("tasks", "reassign", "Reassign the selected team task", "o: pick a member of its team (Claude Code task list)"),
    ("tasks", "mark_pending", "Mark the selected team task pending", "p: back to pending, confirmed first"),
    ("events", "filter", "Filter the events", "/"),
    ("events", "older", "Load older events", "o"),
    ("issues", "decision", "Open the selected issue's round review", "enter: the decision in panel 1"),
)

VERBS = {
    "approve": "Approve",
    "reject": "Reject",
    "retry": "Retry",
    "give_up": "Give up",
    "allow": "Allow",
    "deny": "Deny",
    "resend": "Resend",
    "force": "Force offline",
}
"""How the palette names each answer to a decision."""

PANEL_NAMES = {
    "gates": "Decisions",
    "roster": "Roster",
    "inbox": "Inbox",
    "tasks": "Tasks",
    "events": "Events",
    "plans": "Plans",
    "issues": "Issues",
}


class TeamdeckCommands(Provider):
    """Commands for the palette, from the current snapshot."""

    @property
    def _app(self) -> TeamdeckApp:
        return cast("TeamdeckApp", self.app)  # a provider of this app's palette

    def _commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = self._app
        main = app.main
        commands: list[tuple[str, Callable[[], object], str]] = []
        for number, (panel, title) in enumerate(PANEL_NAMES.items(), 1):
            commands.append((f"Go to {title}", partial(main.action_panel, panel), f"{number}"))
        for panel, action, name, help_text in PANEL_ACTIONS:
            widget = main.query_one(f"#{panel}-panel")
            if widget.check_action(action, ()) is True:
                commands.append((name, partial(_run_on_panel, main, panel, action), help_text))
        commands.append(("Help: every key", app.action_help, "?"))
        snapshot = app.snapshot
        if snapshot is None:
            return commands
        for gate in snapshot.gates:
            label = cell(f"{gate.gate_id or gate.request_id} ({gate.source}): {gate.title}", 120)
            commands.append((f"Read decision {label}", partial(_on_item, main, "gates", gate.key, "open"), "enter"))
            if not app.read_only:
                for action, key in zip(answers(gate), ("a", "r"), strict=True):
                    verb = VERBS[action]
                    commands.append((f"{verb} {label}", partial(_on_item, main, "gates", gate.key, action), key))
        for member in snapshot.members:
            who = cell(f"{member.name} ({member.team})", 100)
            commands.append((f"Inbox of {who}", partial(_on_item, main, "roster", member.key, "open_inbox"), "enter"))
            if not app.read_only:
                commands.append((f"Message {who}", partial(_on_item, main, "roster", member.key, "message"), "m"))
                if member.active and not member.lead:
                    commands.append((f"Shutdown {who}", partial(_on_item, main, "roster", member.key, "shutdown"), "s"))
        for task in snapshot.tasks:
            if not app.read_only:
                commands.append(
                    (f"Join task {cell(task.id, 64)}", partial(_on_item, main, "tasks", task.id, "join"), "j")
                )
        if not app.read_only:
            for stalled in snapshot.stalled_tasks:
                what = cell(f"#{stalled.id} of {stalled.team}: {stalled.subject}", 120)
                commands.append(
                    (f"Reassign stalled task {what}", partial(_on_item, main, "tasks", stalled.key, "reassign"), "o")
                )
                commands.append(
                    (
                        f"Mark stalled task {what} pending",
                        partial(_on_item, main, "tasks", stalled.key, "mark_pending"),
                        "p",
                    )
                )
        return commands + item_commands(app)

    async def discover(self) -> Hits:
        for name, callback, help_text in self._commands():
            yield DiscoveryHit(Content(name), callback, text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in self._commands():
            score, offsets = matcher.fuzzy_search.match(matcher.query, name)
            if score > 0:
                yield Hit(
                    score, highlighted(name, tuple(offsets), matcher.match_style), callback, text=name, help=help_text
                )


def highlighted(name: str, offsets: tuple[int, ...], style: Style) -> Content:
    """``name`` as literal text with the matched characters styled. (``Matcher.highlight``
    parses its argument as markup, and names here come from agents' files.)"""
    content = Content(name)
    for offset in offsets:
        if not name[offset].isspace():
            content = content.stylize(style, offset, offset + 1)
    return content


def _run_on_panel(main, panel: str, action: str) -> None:
    main.action_panel(panel)
    getattr(main.query_one(f"#{panel}-panel"), f"action_{action}")()


def _on_item(main, panel: str, key: str, action: str) -> None:
    """Select ``key`` in ``panel``'s list, then run ``action`` on it."""
    main.action_panel(panel)
    widget = main.query_one(f"#{panel}-panel")
    lists = {"gates": "#gate-list", "roster": "#roster-list", "tasks": "#task-list"}
    widget.query_one(lists[panel]).select_key(key)
    getattr(widget, f"action_{action}")()
