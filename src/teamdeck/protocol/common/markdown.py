"""Putting untrusted text into Markdown we generate, so it cannot pose as structure (S14).

Agents write summaries, questions and file names; a summary holding ``# Gate approved``,
``[docs](https://evil.example)``, ``<script>`` or a closing code fence must not become
a heading, a link, HTML or the end of a quote in a report a person trusts. So agent text
only ever appears in one of two containers that Markdown never interprets:

- :func:`fenced` — a fenced code block whose fence is longer than any backtick run in
  the text, so nothing inside can close it (multi-line text: summaries);
- :func:`code_span` — an inline code span built the same way (one-line text: ids,
  questions, next actions, problem messages).

Both sanitise first (escape sequences and controls removed, length capped; R9).
"""

from __future__ import annotations

import re

from teamdeck.text import one_line, sanitize

BLOCK_CHARS = 4000
INLINE_CHARS = 1000
_BACKTICK_RUN = re.compile(r"`+")


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)


def fenced(text: str, limit: int = BLOCK_CHARS) -> str:
    """``text`` as a fenced code block (info string ``text``) that it cannot close."""
    body = sanitize(text, limit).rstrip("\n")
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    return f"{fence}text\n{body}\n{fence}"


def code_span(text: str, limit: int = INLINE_CHARS) -> str:
    """``text`` folded to one line as an inline code span that it cannot close."""
    body = one_line(text, limit)
    if not body:
        return "` `"
    ticks = "`" * (_longest_backtick_run(body) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{ticks}{pad}{body}{pad}{ticks}"


def numbered(items: list[str], empty: str = "(none)") -> str:
    """A numbered Markdown list of code spans, or ``empty`` when there are none."""
    if not items:
        return empty
    return "\n".join(f"{number}. {code_span(item)}" for number, item in enumerate(items, 1))
