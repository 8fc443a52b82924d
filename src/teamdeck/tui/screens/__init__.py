"""The TUI's screens: the main screen and the help screen (the dialogs a panel opens are in tui/dialogs/)."""
