"""``teamdeck run``: the runner that starts, wakes, watches and stops team members."""
