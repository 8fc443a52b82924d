"""``teamdeck tui`` over several hosts (``--host``, ``-w`` given twice, the hosts file):
every host's link and overview, one decision queue over all of them (oldest first),
their teams, and the answer keys, each answer sent to the host that owns the decision
(remote/link.py). What a host sends is agent text from further away: sanitised at
render, as local text is."""
