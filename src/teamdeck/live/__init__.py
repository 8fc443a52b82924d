"""A workspace kept live for a front, without Textual: :class:`~teamdeck.live.workspace.LiveWorkspace`
(the watch, the refreshes, the echoes of the front's own writes, the auto-join rule) and
:class:`~teamdeck.live.actions.ActionRunner` (the front's actions, one at a time, in the
order asked). The TUI hosts both on its workers and draws what they report; tests drive
them with plain threads."""
