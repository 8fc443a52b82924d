"""The read model: an immutable :class:`~teamdeck.view.snapshot.workspace.WorkspaceSnapshot`
built from disk and refreshed from batches of changed paths. Pure (no Textual, no Rich);
every front (``teamdeck status``, the TUI) draws from it.

Four layers, each importing only those below it (the ``view-layers`` contract in
pyproject.toml): the snapshot and its row types (view/snapshot/); derived figures
(view/figures/: the overview, liveness); one reader per source (view/readers/); the
refresh engine (view/refresh/: :func:`~teamdeck.view.refresh.build.build_snapshot`,
:func:`~teamdeck.view.refresh.build.refresh`, :func:`~teamdeck.view.refresh.build.load_older`).
Above them, agents.py answers an agent's ``list_agents`` from a snapshot it builds. Its
JSON is made above the view, in teamdeck/shapes/, where each decision's spec says its
fields.
"""
