"""Workspaces on other hosts (or several here), read through their ``teamdeck serve``
stream (shapes/stream.py): the hosts a person watches (hosts.py) and one live link to
each (link.py). Headless: the CLI and the TUI both read hosts through it."""
