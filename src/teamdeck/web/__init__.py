"""``teamdeck web``: the decision queue, the roster, inboxes and run logs in a browser or
on a phone, over the same links as the hosts TUI (docs/web.md)."""
