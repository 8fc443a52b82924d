"""Figures derived from the snapshot's rows, the same for every front: the overview
numbers and the ages shown beside rows (overview.py), and whether a team or a member is
still alive (liveness.py). Pure functions of rows and a clock: they read no file.
Imports none of its modules here.
"""
