"""Modal screens a panel opens (compose a message, pick a member or a state, read a
text or a verdict history): below the widgets, above the registry and the renderers,
they import no panel and no screen."""
