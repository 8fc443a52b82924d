"""How long what a client sends may be: the caps every front that takes arguments from
a program puts on them (the MCP tools, ``teamdeck serve``'s requests), checked before
anything is written."""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

ID_CHARS = 130
"""An id or a member (``name@team``: two names of at most 64)."""
SHORT_CHARS = 500
"""A summary, a reason, a role, a model."""
TEXT_CHARS = 10_000
"""A message, a note, a prompt, a report: well under the 64 KiB log record even when
every character is escaped."""
ITEMS = 50
"""Questions, next actions, changed files."""

Id = Annotated[str, StringConstraints(max_length=ID_CHARS)]
Short = Annotated[str, StringConstraints(max_length=SHORT_CHARS)]
Text = Annotated[str, StringConstraints(max_length=TEXT_CHARS)]
