"""``teamdeck serve``: the live workspace as a stream other machines read (frames.py: the
frames; session.py: one client served; requests.py: the actions a client may ask for),
and the client side that reads a remote one over SSH (hosts.py, remote.py)."""
