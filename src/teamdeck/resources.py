"""Where the shipped data directories (styles/, templates/, schemas/, demo-workspace/, web/) are.

In a wheel they live inside the package as ``teamdeck/_data/<name>``; in a source
checkout (editable install, tests) they are the top-level directories of the repo.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DATA = Path(__file__).resolve().parent / "_data"
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def data_dir(name: str) -> Path:
    """The directory of shipped data ``name`` ("styles", "templates", "schemas", "demo-workspace" or "web")."""
    packaged = _PACKAGE_DATA / name
    return packaged if packaged.is_dir() else _SOURCE_ROOT / name
