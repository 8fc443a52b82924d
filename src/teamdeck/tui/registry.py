"""Every action of the TUI, once: its id, key, footer label, palette name, the panel
whose method handles it, and its line in the help screen.

Each panel's rows are its package's (tui/panels/*/__init__.py, on the rows of
tui/keys.py); this module gathers them, in tab order, with the app's and the main
screen's own: :data:`PANELS` is the one place that lists the panels. The panels'
``BINDINGS`` (and so the footer), the main screen's and the app's, the command palette
(tui/commands.py) and the help screen (tui/screens/help.py) are all generated from
:data:`ACTIONS`; nothing else names a key. Whether an action is enabled right now is
asked of one place, the handling panel's ``check_action`` (True: shown and runnable;
None: shown greyed; False: hidden, another action owns the key now), which Textual
consults for the key and the footer and the palette consults for its list; the rules
behind it are protocol predicates (``can_*``) wherever a write is concerned.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.binding import BindingType

from teamdeck.tui.keys import Action, PanelKeys, bindings
from teamdeck.tui.panels import decisions, events, inbox, issues, plans, problems, roster, tasks

if TYPE_CHECKING:
    from teamdeck.tui.widgets.panel import Panel

PANELS: tuple[PanelKeys, ...] = (
    decisions.KEYS,
    roster.KEYS,
    inbox.KEYS,
    tasks.KEYS,
    events.KEYS,
    plans.KEYS,
    issues.KEYS,
    problems.KEYS,
)
"""The panels in tab order (the number of each is its key)."""
PANEL_TITLES = {panel.name: f"{number} {panel.title}" for number, panel in enumerate(PANELS, 1)}
"""The panels by name, with their tab titles (the number is the panel's key)."""
EVERYWHERE = "Everywhere"

ACTIONS: tuple[Action, ...] = (
    Action(id="quit", scope="app", action="quit", key="q", label="Quit", command="Quit teamdeck", help="quit"),
    Action(
        id="help",
        scope="app",
        action="help",
        key="question_mark",
        label="Help",
        command="Help: every key",
        help="this help",
    ),
    Action(
        id="notices",
        scope="app",
        action="notices",
        key="n",
        label="Notices",
        command="Notices: every notice so far, newest first",
        help="notices: every notice so far with its time and severity, newest first",
        show=False,
    ),
    # Declaring a command_palette binding stops Textual adding its own ctrl+p: keep both.
    Action(
        id="palette",
        scope="app",
        action="command_palette",
        key="ctrl+p",
        label="Commands",
        command=None,
        help="command palette: every action by name",
        show=False,
        priority=True,
    ),
    Action(
        id="palette-colon",
        scope="app",
        action="command_palette",
        key="colon",
        label="Commands",
        command=None,
        help="command palette too",
        show=False,
    ),
    *(
        Action(
            id=f"panel-{panel.name}",
            scope="main",
            action=f"panel('{panel.name}')",
            key=str(number),
            label=panel.title,
            command=f"Go to {panel.title}",
            help="switch panel",
            show=False,
        )
        for number, panel in enumerate(PANELS, 1)
    ),
    Action(
        id="next-panel",
        scope="main",
        action="next_panel(1)",
        key="tab",
        label="Next panel",
        command="Next panel",
        help="next panel",
        show=False,
        priority=True,
    ),
    Action(
        id="previous-panel",
        scope="main",
        action="next_panel(-1)",
        key="shift+tab",
        label="Previous panel",
        command="Previous panel",
        help="previous panel",
        show=False,
        priority=True,
    ),
    Action(
        id="back",
        scope="main",
        action="back",
        key="escape",
        label="Back",
        command="Back",
        help="back: close the filter, or the inbox to the roster",
        show=False,
    ),
    *(action for panel in PANELS for action in panel.rows()),
)
"""Every action, in the order of the footer and the help screen."""

BY_ID = {action.id: action for action in ACTIONS}


def scope_actions(scope: str) -> tuple[Action, ...]:
    """The actions handled by ``scope`` (a panel, ``main`` or ``app``), in order."""
    return tuple(action for action in ACTIONS if action.scope == scope)


def scope_bindings(scope: str) -> list[BindingType]:
    """The ``BINDINGS`` of ``scope`` (``app`` or ``main``; a panel's are its own rows'):
    one binding per action."""
    return bindings(scope_actions(scope))


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
            asked = "; confirmed first" if action.confirmed else ""
            lines.append((action.key_text, action.help + asked))
        sections.append((title, lines))
    return sections


def later_panels() -> Iterator[tuple[str, type[Panel]]]:
    """Panels 2-8 by name, their widgets imported only now (after the first frame: panel
    1's is the main screen's own import)."""
    from teamdeck.tui.panels.events.panel import EventsPanel
    from teamdeck.tui.panels.inbox.panel import InboxPanel
    from teamdeck.tui.panels.issues.panel import IssuesPanel
    from teamdeck.tui.panels.plans.panel import PlansPanel
    from teamdeck.tui.panels.problems.panel import ProblemsPanel
    from teamdeck.tui.panels.roster.panel import RosterPanel
    from teamdeck.tui.panels.tasks.panel import TasksPanel

    yield from (
        (roster.KEYS.name, RosterPanel),
        (inbox.KEYS.name, InboxPanel),
        (tasks.KEYS.name, TasksPanel),
        (events.KEYS.name, EventsPanel),
        (plans.KEYS.name, PlansPanel),
        (issues.KEYS.name, IssuesPanel),
        (problems.KEYS.name, ProblemsPanel),
    )
