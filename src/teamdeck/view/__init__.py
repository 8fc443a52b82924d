"""The read model: an immutable :class:`WorkspaceSnapshot` built from disk and
refreshed from batches of changed paths. Pure (no Textual, no Rich); every front
(``teamdeck status``, the TUI) draws from it.

Public API: :func:`build_snapshot`, :func:`refresh`, :func:`load_older` (view/build.py),
the snapshot types (view/snapshot.py) and :func:`overview` (view/overview.py). Its JSON
is made above it, in teamdeck/shapes/, where each decision's spec says its fields.
"""
