"""Modal screens a panel opens (compose a message, pick a member or a state, read a
text or a verdict history): below the panels and the generic widgets, above the app's
protocol (tui/host.py) and the renderers, they import no panel and no screen."""
