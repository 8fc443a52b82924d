"""The snapshot and its row types: one immutable picture of a workspace
(:class:`~teamdeck.view.snapshot.workspace.WorkspaceSnapshot`) and the frozen rows it is
made of, the teams, members, tasks and decisions (workspace.py), the events' rows
(events.py), plans and verdicts (plans.py), issues (issues.py) and runs (runs.py).

The floor of the view: it imports no reader, so a front can hold and draw a snapshot
(the TUI's first frame, a pickled snapshot from a forked reader) without loading what
reads one. Imports none of its modules here, for the same reason.
"""
