"""What a registry row is: one :class:`Action` per thing a person can do, a panel's
rows with its tab title (:class:`PanelKeys`), and the Textual bindings made from rows.

Each panel's package declares its own rows (tui/panels/*/__init__.py); tui/registry.py
gathers them with the app's and the main screen's, in one visible place. This module
is the floor under both: it imports no panel and no registry, so a panel takes its
``BINDINGS`` from its own rows without importing the registry that gathers it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache

from textual.binding import Binding, BindingType

KEY_TEXT = {"slash": "/", "question_mark": "?", "colon": ":", "escape": "esc", "shift+tab": "shift+tab"}
"""Textual's name of a key → how a person reads it (the others read as they are named)."""


@dataclass(frozen=True, kw_only=True)
class Action:
    """One thing a person can do.

    Attributes:
        id: unique; the binding id (keymaps can rebind it).
        scope: the panel that handles it (the ``name`` of its :class:`PanelKeys`), or
            ``main`` (the main screen) or ``app``.
        action: the Textual action string; ``action_<name>`` of the scope handles it.
        key: the Textual key (``a``, ``enter``, ``slash``).
        label: the footer's label.
        command: the palette's name for it (acting on what is selected), or None when the
            palette would only open itself (the palette key).
        help: the help screen's line.
        show: whether the footer shows it.
        priority: a priority binding (checked before the focused widget's).
        confirmed: it asks in the confirm bar first (the help screen says so).
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
    confirmed: bool = False

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


@dataclass(frozen=True, kw_only=True)
class PanelKeys:
    """A panel's part of the registry.

    Attributes:
        name: the panel's scope, the id of its tab (its widget's is ``<name>-panel``).
        title: its tab's title, without the number (the registry numbers the tabs).
        actions: its rows, in the order of the footer and the help screen.
        filter: it takes the base panel's ``/`` filter (tui/widgets/panel.py): its
            row, made by :func:`filter_action`, comes first in :meth:`rows`.
    """

    name: str
    title: str
    actions: tuple[Action, ...]
    filter: bool = True

    def rows(self) -> tuple[Action, ...]:
        """Every row of the panel: its filter's (when it takes one), then its own."""
        return (filter_action(self), *self.actions) if self.filter else self.actions

    def bindings(self) -> list[BindingType]:
        """The panel's ``BINDINGS``."""
        return bindings(self.rows())


def filter_action(panel: PanelKeys) -> Action:
    """The ``/`` row of ``panel`` (the base panel's filter line), the same for each."""
    return Action(
        id=f"{panel.name}-filter",
        scope=panel.name,
        action="filter",
        key="slash",
        label="Filter",
        command=f"Filter {panel.title}",
        help="filter: keep the rows that contain a text",
        show=False,
    )


def bindings(actions: tuple[Action, ...]) -> list[BindingType]:
    """One Textual binding per action."""
    return [
        Binding(action.key, action.action, action.label, show=action.show, id=action.id, priority=action.priority)
        for action in actions
    ]
