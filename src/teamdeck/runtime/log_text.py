"""The end of a run's output log as the lines a person reads: what every runtime's
:meth:`~teamdeck.runtime.spec.Runtime.read_log` is built on.

Only the log's end is read (a log grows for as long as the run goes); the first line of
what is read is dropped when the read started inside it. Each whole line becomes the
lines a runtime makes of it (:func:`plain_lines`: the line itself), each one safe line
(S1: the log is agent-written), blank lines left out.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from teamdeck.store.runs import tail_text
from teamdeck.text import one_line

READ_BYTES = 64 * 1024
"""How much of the log's end is read to find whole lines to show (one line of a
structured log is often larger than what is shown of it)."""
LINE_CHARS = 300
"""The most of one line shown."""


def plain_lines(raw: str) -> list[str]:
    """A line of plain text, as it is: cut to one safe line."""
    return [one_line(raw, LINE_CHARS)]


def readable(text: str, lines_of: Callable[[str], list[str]] = plain_lines) -> str:
    """Each non-blank line of ``text`` as ``lines_of`` makes it readable."""
    return "\n".join(shown for raw in text.splitlines() if raw.strip() for shown in lines_of(raw))


def readable_tail(path: Path, limit: int, lines_of: Callable[[str], list[str]] = plain_lines) -> str:
    """The last ``limit`` characters of the readable log (whole lines), "" without a log."""
    text = tail_text(path, READ_BYTES)
    whole = text if len(text) < READ_BYTES else text.partition("\n")[2]  # the first line is cut: drop it
    shown = readable(whole, lines_of)
    if len(shown) <= limit:
        return shown
    return shown[-limit:].partition("\n")[2]
