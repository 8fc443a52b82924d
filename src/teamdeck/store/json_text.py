"""How teamdeck writes JSON text, in a module that imports nothing else: the append-only
logs (store/jsonl.py) are written by ``teamdeck hook``, which must start fast (no YAML)."""

from __future__ import annotations

import json
from typing import Any


def dumps_json(data: Any, *, indent: int | None = None) -> str:
    """Serialise JSON the way we always write it: UTF-8 text, no NaN."""
    separators = None if indent else (",", ":")
    return json.dumps(data, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators)
