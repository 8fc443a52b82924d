"""``teamdeck serve``: the live workspace as a stream other machines read (the frames:
shapes/stream.py; session.py: one client served; requests.py: the actions a client may
ask for). The client side is remote/."""
