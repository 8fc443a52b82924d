"""The TUI's screens: the main screen and the dialogs over it (help, compose, pickers, text)."""
