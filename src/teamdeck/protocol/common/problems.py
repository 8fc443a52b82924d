"""Validation errors as ``(JSON path, message)`` pairs a person can read (R8, S12).

Both pydantic and jsonschema messages may embed the offending value, which an agent
wrote: every message is sanitised to one line and truncated here, before anything
prints or stores it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from teamdeck.text import one_line

MESSAGE_CHARS = 300
"""The longest message kept (the value an agent wrote may be megabytes)."""


def json_path(location: Iterable[Any]) -> str:
    """``("gates", 0, "id")`` → ``$.gates[0].id`` (keys come from the file: sanitised)."""
    text = "$"
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return clean_message(text)


def clean_message(text: str) -> str:
    """A message safe for a terminal: one line, controls removed, truncated (S12)."""
    return one_line(text, MESSAGE_CHARS)


def pydantic_problems(err: ValidationError) -> list[tuple[str, str]]:
    """Each pydantic error as ``($.path, message)``, in pydantic's order."""
    problems = []
    for item in err.errors(include_url=False):
        message = item["msg"]
        if "input" in item and item["type"].endswith("_type"):
            message += f", got {type(item['input']).__name__}"
        problems.append((json_path(item["loc"]), clean_message(message)))
    return problems
