"""The command palette (``ctrl+p`` or ``:``): every action of tui/registry.py by name
(acting on what is selected, listed when the panel enables it), plus one command per
decision waiting, member, task, team task and plan, so a person can type "approve g-w1"
or "shutdown alice" instead of navigating. Each names its key, from the registry; each
runs the same panel method as the key, so the palette can never do something else."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.style import Style

import teamdeck.tui.registry as registry
from teamdeck.protocol.team.allowed import can_shutdown, can_update_team_task
from teamdeck.tui.host import deck_host
from teamdeck.tui.keys import Action
from teamdeck.tui.panels.decisions.panel import answers
from teamdeck.tui.panels.plans.actions import plan_allows_run
from teamdeck.tui.panels.tasks.actions import task_allows
from teamdeck.tui.render import cell
from teamdeck.tui.screens.main import MainScreen, main_screen

if TYPE_CHECKING:
    from textual.app import App

Command = tuple[str, Callable[[], object], str]


class TeamdeckCommands(Provider):
    """Commands for the palette, from the registry and the current snapshot."""

    async def _commands(self) -> list[Command]:
        app = self.app
        await main_screen(app).mount_panels()  # a palette opened in the first instant of a start
        # What is on screen first (the decisions, oldest first): the palette preselects
        # the first command, and that must never be Quit. Textual's own commands (theme,
        # keys, screenshot) come last, from here: a provider of their own raced this one
        # for the top of the list.
        system = [(command.title, command.callback, command.help) for command in app.get_system_commands(self.screen)]
        return item_commands(app) + registry_commands(app) + system

    async def discover(self) -> Hits:
        for name, callback, help_text in await self._commands():
            yield DiscoveryHit(Content(name), callback, text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, callback, help_text in await self._commands():
            score, offsets = matcher.fuzzy_search.match(matcher.query, name)
            if score > 0:
                yield Hit(
                    score, highlighted(name, tuple(offsets), matcher.match_style), callback, text=name, help=help_text
                )


def registry_commands(app: App[Any]) -> list[Command]:
    """One command per action of the registry that is enabled now (the panel's
    ``check_action`` says True), named by the registry, running the key's action."""
    main = main_screen(app)
    commands: list[Command] = []
    for action in sorted(registry.ACTIONS, key=lambda action: action.scope == "app"):  # quit, help: last
        if action.command is None:
            continue
        if action.scope == "app":
            commands.append((action.command, _run(app, action.action), action.key_text))
        elif action.scope == "main":
            commands.append((action.command, _run(main, action.action), action.key_text))
        elif main.panel(action.scope).check_action(action.name, action.parameters) is True:
            commands.append((action.command, _on_panel(main, action), f"{action.key_text}: {action.help}"))
    return commands


def item_commands(app: App[Any]) -> list[Command]:
    """One command per thing on screen and per action it allows now."""
    main = main_screen(app)
    host = deck_host(main)
    snapshot = host.snapshot
    if snapshot is None:
        return []
    writable = not host.read_only
    commands: list[Command] = []

    def add(name: str, scope: str, key: str, action: str, *parameters: object) -> None:
        entry = registry.find(scope, action, *parameters)
        commands.append((name, _on_item(main, entry, key), entry.key_text))

    for gate in snapshot.decisions:
        label = cell(f"{gate.gate_id or gate.request_id} ({gate.source}): {gate.title}", 120)
        add(f"Read decision {label}", "gates", gate.key, "open")
        if writable:
            for answer in answers(gate):
                add(f"{answer.label} {label}", "gates", gate.key, "answer", answer.action)
    for member in snapshot.members:
        who = cell(f"{member.name} ({member.team})", 100)
        add(f"Inbox of {who}", "roster", member.key, "open_inbox")
        if writable:
            add(f"Message {who}", "roster", member.key, "message")
            if can_shutdown(member.active, member.lead):
                add(f"Shutdown {who}", "roster", member.key, "shutdown")
    for task in snapshot.tasks:
        name = cell(task.id, 64)
        add(f"Verdicts of task {name}", "tasks", task.id, "verdicts")
        if writable:
            add(f"Join task {name}", "tasks", task.id, "join")
            for action, label in TASK_COMMANDS:
                if task_allows(task, action):
                    add(label.format(name), "tasks", task.id, "cancel_task" if action == "cancel" else action)
    if writable:
        for stalled in snapshot.stalled_tasks:
            what = cell(f"#{stalled.id} of {stalled.team}: {stalled.subject}", 120)
            if can_update_team_task(stalled.status, "reassign"):
                add(f"Reassign stalled task {what}", "tasks", stalled.key, "reassign")
            if can_update_team_task(stalled.status, "pending"):
                add(f"Mark stalled task {what} pending", "tasks", stalled.key, "mark_pending")
    for plan in snapshot.plans:
        name = cell(plan.id, 64)
        add(f"Show plan {name}", "plans", plan.id, "read")
        if writable and plan_allows_run(plan):
            add(f"Run plan {name} (plan run)", "plans", plan.id, "run")
    return commands


TASK_COMMANDS = (
    ("transition", "Move task {} to another state"),
    ("verify", "Verify task {} with its guardian"),
    ("retry", "Retry task {}"),
    ("cancel", "Cancel task {}"),
)


def highlighted(name: str, offsets: tuple[int, ...], style: Style) -> Content:
    """``name`` as literal text with the matched characters styled. (``Matcher.highlight``
    parses its argument as markup, and names here come from agents' files.)"""
    content = Content(name)
    for offset in offsets:
        if not name[offset].isspace():
            content = content.stylize(style, offset, offset + 1)
    return content


def _run(target: App[Any] | MainScreen, action: str) -> Callable[[], object]:
    return lambda: target.run_action(action)


def _on_panel(main: MainScreen, action: Action) -> Callable[[], Awaitable[None]]:
    """Show the action's panel, then run the action on what is selected there."""

    async def run() -> None:
        await main.action_panel(action.scope)
        main.panel(action.scope).run_registered(action)

    return run


def _on_item(main: MainScreen, action: Action, key: str) -> Callable[[], Awaitable[None]]:
    """Select ``key`` in the action's panel, then run the action on it."""

    async def run() -> None:
        await main.action_panel(action.scope)
        panel = main.panel(action.scope)
        panel.select_key(key)
        panel.run_registered(action)

    return run
