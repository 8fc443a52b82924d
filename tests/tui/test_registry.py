"""One action registry: every key the TUI has is an action of tui/registry.py, reachable
by its key (a binding of the panel that handles it), by the command palette (which runs
the same handler) and documented in the help screen; the help screen lists no key the
bindings lack. A FAIL gate's palette offers Retry and Give up, never Approve."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import plan_world as world
from support.pilot_helpers import make_app, run, showing, until
from textual.binding import Binding

from teamdeck.tui import registry
from teamdeck.tui.app import TeamdeckApp
from teamdeck.tui.commands import item_commands, registry_commands
from teamdeck.tui.keys import KEY_TEXT
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.decisions.panel import DecisionsPanel
from teamdeck.tui.panels.events.panel import EventsPanel
from teamdeck.tui.panels.inbox.panel import InboxPanel
from teamdeck.tui.panels.issues.panel import IssuesPanel
from teamdeck.tui.panels.plans.panel import PlansPanel
from teamdeck.tui.panels.problems.panel import ProblemsPanel
from teamdeck.tui.panels.roster.panel import RosterPanel
from teamdeck.tui.panels.tasks.panel import TasksPanel
from teamdeck.tui.screens.help import help_content
from teamdeck.tui.screens.main import MainScreen
from teamdeck.tui.widgets.confirm_bar import ConfirmBar
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel

SCOPES: dict[str, type] = {
    "app": TeamdeckApp,
    "main": MainScreen,
    "gates": DecisionsPanel,
    "roster": RosterPanel,
    "inbox": InboxPanel,
    "tasks": TasksPanel,
    "events": EventsPanel,
    "plans": PlansPanel,
    "issues": IssuesPanel,
    "problems": ProblemsPanel,
}
KEY_NAMES = {text: key for key, text in KEY_TEXT.items()}
LIST_KEYS = {
    "up/down": ("up", "down"),
    "j/k": ("j", "k"),
    "pgup/pgdn": ("pageup", "pagedown"),
    "home/end": ("home", "end"),
}


def _bindings(cls: type) -> list[Binding]:
    return [binding for binding in cls.BINDINGS if isinstance(binding, Binding)]


def test_every_action_is_bound_to_its_key_in_its_scope_and_has_a_handler() -> None:
    assert len({action.id for action in registry.ACTIONS}) == len(registry.ACTIONS)
    for action in registry.ACTIONS:
        cls = SCOPES[action.scope]
        bound = [binding for binding in _bindings(cls) if binding.id == action.id]
        assert [(binding.key, binding.action) for binding in bound] == [(action.key, action.action)], action.id
        assert callable(getattr(cls, f"action_{action.name}", None)), f"{cls.__name__} cannot {action.name}"


def test_no_binding_exists_outside_the_registry() -> None:
    for scope, cls in SCOPES.items():
        ids = [binding.id for binding in _bindings(cls)]
        assert ids == [action.id for action in registry.scope_actions(scope)], scope


def _help_keys() -> dict[str, set[str]]:
    """Every key the help screen names, by section, as Textual key names."""
    sections: dict[str, set[str]] = {}
    current = ""
    for line in str(help_content()).splitlines():
        if line and not line.startswith(" "):
            current = line
            sections[current] = set()
        elif line.startswith("  ") and current:
            for key in line[2:].split("  ")[0].replace(",", " ").split():
                sections[current].update(LIST_KEYS.get(key, (KEY_NAMES.get(key, key),)))
    return sections


def test_a_key_in_help_is_a_binding_of_that_section_and_every_action_is_in_help() -> None:
    sections = _help_keys()
    list_keys = {key for binding in _bindings(LineList) for key in binding.key.split(",")}
    for title, keys in sections.items():
        if title == registry.EVERYWHERE:
            bound = {b.key for b in _bindings(TeamdeckApp) + _bindings(MainScreen)} | list_keys
        elif title in registry.PANEL_TITLES.values():
            panel = next(name for name, shown in registry.PANEL_TITLES.items() if shown == title)
            bound = {binding.key for binding in _bindings(SCOPES[panel])}
        else:
            continue
        assert keys <= bound, f"help names keys that nothing binds in {title}: {keys - bound}"
    for action in registry.ACTIONS:
        title = registry.PANEL_TITLES.get(action.scope, registry.EVERYWHERE)
        assert action.key in sections[title], f"{action.id} ({action.key}) is missing from help's {title}"
    for action in registry.scope_actions("gates"):
        assert action.help in str(help_content()), action.id


def test_every_panel_action_is_in_the_palette_and_runs_the_keys_handler(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = world.build(tmp_path / "ws", "failed")
    app = make_app(ws)
    ran: list[tuple[str, str, tuple[object, ...]]] = []

    async def scenario(pilot):
        for scope in registry.PANEL_TITLES:
            cls = type(app.main.panel(scope))
            monkeypatch.setattr(cls, "check_action", lambda self, action, parameters: True)
            for action in registry.scope_actions(scope):
                monkeypatch.setattr(
                    cls,
                    f"action_{action.name}",
                    lambda self, *parameters, a=action: ran.append((a.scope, a.name, parameters)),
                    raising=True,
                )
        commands = {name: run for name, run, _help in registry_commands(app)}
        for action in registry.ACTIONS:
            if action.command is None:
                assert action.action == "command_palette", action.id
                continue
            assert action.command in commands, f"{action.id} is not in the palette"
            if action.scope in registry.PANEL_TITLES:
                ran.clear()
                await commands[action.command]()
                assert ran == [(action.scope, action.name, action.parameters)], action.id

    run(app, scenario)


def test_a_fail_gate_offers_retry_and_give_up_in_the_palette_and_the_command_asks_to_retry(tmp_path: Path) -> None:
    ws = world.build(tmp_path / "ws", "failed")
    key = f"task:{world.IDS['Package']}:{world.fail_gate(ws)}"
    app = make_app(ws)

    async def scenario(pilot):
        assert app.main.query_one(DecisionList).select_key(key)
        await pilot.pause()
        names = [name for name, _run, _help in registry_commands(app)]
        assert "Retry the selected FAIL gate" in names and "Give up the selected FAIL gate" in names
        assert "Approve the selected decision" not in names and "Reject the selected decision" not in names
        gate = app.snapshot.decision(key)
        items = {name: run for name, run, _help in item_commands(app)}
        label = next(name for name in items if name.startswith("Retry ") and gate.gate_id in name)
        assert not any(name.startswith("Approve ") and gate.gate_id in name for name in items)
        await items[label]()
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm bar")
        assert app.main.confirm_bar.confirm_label == "Retry"

    run(app, scenario)


def test_panels_share_one_typed_base() -> None:
    for scope in registry.PANEL_TITLES:
        assert issubclass(SCOPES[scope], Panel), scope
