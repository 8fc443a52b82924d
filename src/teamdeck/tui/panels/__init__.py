"""The eight panels of the main screen, one package each: its widget (``panel.py``),
its list, the actions its keys post (``actions.py``, when it writes) and, in the
package itself, its registry rows (a :class:`~teamdeck.tui.keys.PanelKeys`), which
tui/registry.py gathers. A package's ``__init__`` holds only those rows: the registry
reads every panel's for the first frame, and panels 2-8 are imported after it
(tui/screens/main.py)."""
