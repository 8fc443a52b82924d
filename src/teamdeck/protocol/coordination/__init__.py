"""Coordination (seed 002): who may do what (roles.py), handing a task to a member and its
report back (delegation.py), what a member is doing (agent_watch.py) and said
(conversation.py), work left untouched (stall_scan.py) and the lead's reminder
(nudges.py), and the decision queue agents ask a person through (decisions.py). Over
the team protocol (protocol/team/) and tasks (protocol/task/).
"""
